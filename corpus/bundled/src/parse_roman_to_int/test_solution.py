from solution import roman_to_int
import pytest


@pytest.mark.parametrize("s,expected", [
    ("LVIII", 58),
    ("MCMXCIV", 1994),
    ("I", 1),
    ("III", 3),
    ("IV", 4),
    ("IX", 9),
    ("XL", 40),
    ("CDXLIV", 444),
    ("MMMCMXCIX", 3999),
    ("DCCC", 800),
])
def test_roman_to_int(s, expected):
    assert roman_to_int(s) == expected
