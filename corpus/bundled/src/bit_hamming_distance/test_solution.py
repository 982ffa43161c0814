from solution import hamming_distance
import pytest


@pytest.mark.parametrize("x, y, expected", [
    (1, 4, 2),
    (3, 1, 1),
    (0, 0, 0),
    (7, 7, 0),
    (0, 1, 1),
    (0, 255, 8),
    (8, 7, 4),
    (2 ** 62, 0, 1),
    (2 ** 63 - 1, 0, 63),
])
def test_hamming_distance(x, y, expected):
    assert hamming_distance(x, y) == expected
