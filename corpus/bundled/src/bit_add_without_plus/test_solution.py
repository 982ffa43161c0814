from solution import add32
import pytest


@pytest.mark.parametrize("a, b, expected", [
    (1, 2, 3),
    (-1, 1, 0),
    (-5, -7, -12),
    (0, 0, 0),
    (0, -9, -9),
    (15, 1, 16),
    (100, -1, 99),
    (2147483646, 1, 2147483647),
    (-2147483647, -1, -2147483648),
    (123456, 654321, 777777),
])
def test_add32(a, b, expected):
    assert add32(a, b) == expected
