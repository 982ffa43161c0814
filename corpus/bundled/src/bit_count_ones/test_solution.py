from solution import count_ones
import pytest


@pytest.mark.parametrize("n, expected", [
    (11, 3),
    (128, 1),
    (0, 0),
    (1, 1),
    (2, 1),
    (3, 2),
    (255, 8),
    (2 ** 32 - 1, 32),
    (2 ** 64 - 1, 64),
    (0b1010101010, 5),
])
def test_count_ones(n, expected):
    assert count_ones(n) == expected
