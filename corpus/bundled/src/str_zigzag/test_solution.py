from solution import zigzag
import pytest


@pytest.mark.parametrize("s, rows, expected", [
    ("PAYPALISHIRING", 3, "PAHNAPLSIIGYIR"),
    ("PAYPALISHIRING", 4, "PINALSIGYAHRPI"),
    ("", 3, ""),
    ("A", 1, "A"),
    ("ABCD", 1, "ABCD"),
    ("ABCD", 2, "ACBD"),
    ("ABC", 5, "ABC"),
    ("ABCDE", 4, "ABCED"),
    ("0123456789", 3, "0481357926"),
])
def test_zigzag(s, rows, expected):
    assert zigzag(s, rows) == expected
