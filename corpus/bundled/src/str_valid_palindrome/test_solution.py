from solution import is_palindrome
import pytest


@pytest.mark.parametrize("s, expected", [
    ("A man, a plan, a canal: Panama", True),
    ("race a car", False),
    ("", True),
    (" .,", True),
    ("a", True),
    ("ab", False),
    ("0P", False),
    ("No 'x' in Nixon", True),
    ("12321", True),
    ("1231", False),
    ("Ab,ba!", True),
])
def test_is_palindrome(s, expected):
    assert is_palindrome(s) is expected
