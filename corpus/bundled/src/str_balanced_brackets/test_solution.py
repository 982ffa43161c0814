from solution import is_balanced
import pytest


@pytest.mark.parametrize("s, expected", [
    ("{[()()]}", True),
    ("([)]", False),
    ("f(a[1]) + {x}", True),
    ("", True),
    ("(", False),
    (")", False),
    ("(()", False),
    ("())(", False),
    ("no brackets", True),
    ("[{}]{", False),
    ("((([[[{{{}}}]]])))", True),
])
def test_is_balanced(s, expected):
    assert is_balanced(s) is expected
