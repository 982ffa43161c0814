from solution import longest_palindrome
import pytest


@pytest.mark.parametrize("s, expected", [
    ("babad", "bab"),
    ("cbbd", "bb"),
    ("", ""),
    ("a", "a"),
    ("ab", "a"),
    ("aaaa", "aaaa"),
    ("forgeeksskeegfor", "geeksskeeg"),
    ("abacdfgdcaba", "aba"),
    ("xyzracecar", "racecar"),
    ("Aa", "A"),
])
def test_longest_palindrome(s, expected):
    assert longest_palindrome(s) == expected
