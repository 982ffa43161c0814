from solution import add_fractions
import pytest


@pytest.mark.parametrize("a, b, expected", [
    ((1, 2), (1, 3), (5, 6)),
    ((1, -4), (1, 4), (0, 1)),
    ((0, 5), (0, 7), (0, 1)),
    ((1, 2), (1, 2), (1, 1)),
    ((2, 3), (-1, 3), (1, 3)),
    ((-1, 2), (-1, 3), (-5, 6)),
    ((3, -4), (0, 1), (-3, 4)),
    ((5, 10), (0, 3), (1, 2)),
    ((-7, -3), (2, 6), (8, 3)),
    ((1, 1000000000), (1, 999999999), (1999999999, 999999999000000000)),
])
def test_add_fractions(a, b, expected):
    assert add_fractions(a, b) == expected
