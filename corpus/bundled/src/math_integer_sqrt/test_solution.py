from solution import isqrt
import pytest


@pytest.mark.parametrize("n, expected", [
    (16, 4),
    (17, 4),
    (15, 3),
    (0, 0),
    (1, 1),
    (2, 1),
    (3, 1),
    (4, 2),
    (99, 9),
    (10 ** 30, 10 ** 15),
    (10 ** 30 - 1, 10 ** 15 - 1),
])
def test_isqrt(n, expected):
    assert isqrt(n) == expected
