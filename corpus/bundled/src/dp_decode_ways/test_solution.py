from solution import num_decodings
import pytest


@pytest.mark.parametrize("s,expected", [
    ("12", 2),
    ("226", 3),
    ("06", 0),
    ("", 1),
    ("0", 0),
    ("10", 1),
    ("27", 1),
    ("26", 2),
    ("11106", 2),
    ("1111111111", 89),
    ("100", 0),
])
def test_num_decodings(s, expected):
    assert num_decodings(s) == expected
