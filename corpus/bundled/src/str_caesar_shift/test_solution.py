from solution import caesar_shift
import pytest


@pytest.mark.parametrize("s, k, expected", [
    ("abc xyz", 2, "cde zab"),
    ("Hello, World!", -1, "Gdkkn, Vnqkc!"),
    ("", 5, ""),
    ("abc", 0, "abc"),
    ("abc", 26, "abc"),
    ("Zz", 1, "Aa"),
    ("aA", -27, "zZ"),
    ("a1-b2", 3, "d1-e2"),
    ("mno", 1000000000, "yza"),
])
def test_caesar_shift(s, k, expected):
    assert caesar_shift(s, k) == expected
