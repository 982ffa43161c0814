from solution import trailing_zeros
import pytest


@pytest.mark.parametrize("n, expected", [
    (5, 1),
    (25, 6),
    (0, 0),
    (4, 0),
    (9, 1),
    (10, 2),
    (24, 4),
    (100, 24),
    (125, 31),
    (1000000000, 249999998),
])
def test_trailing_zeros(n, expected):
    assert trailing_zeros(n) == expected
