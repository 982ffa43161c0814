from solution import parse_int
import pytest


@pytest.mark.parametrize("s, expected", [
    ("   -42abc", -42),
    ("91283472332", 2147483647),
    ("words 12", 0),
    ("", 0),
    ("+7", 7),
    ("-", 0),
    ("2147483647", 2147483647),
    ("-2147483648", -2147483648),
    ("-2147483649", -2147483648),
    ("  0012 34", 12),
    ("+-3", 0),
])
def test_parse_int(s, expected):
    assert parse_int(s) == expected
