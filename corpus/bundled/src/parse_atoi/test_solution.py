from solution import parse_int
import pytest


@pytest.mark.parametrize("s,expected", [
    ("42", 42),
    ("   -42abc", -42),
    ("words 987", 0),
    ("", 0),
    ("+7", 7),
    ("-", 0),
    ("99999999999", 2147483647),
    ("-2147483649", -2147483648),
    ("-2147483648", -2147483648),
    ("0032 1", 32),
    ("+-5", 0),
])
def test_parse_int(s, expected):
    assert parse_int(s) == expected
