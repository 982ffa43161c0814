from solution import is_balanced
import pytest


@pytest.mark.parametrize("s,expected", [
    ("{[a](b)}", True),
    ("([)]", False),
    ("", True),
    ("no brackets", True),
    ("(", False),
    (")", False),
    ("(()", False),
    ("())(", False),
    ("{{[[(())]]}}", True),
    ("[x{y(z)}]]", False),
    ("f(a[0], {b: c})", True),
])
def test_is_balanced(s, expected):
    assert is_balanced(s) is expected
