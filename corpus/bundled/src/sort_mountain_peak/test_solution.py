from solution import peak_index
import pytest


@pytest.mark.parametrize("arr, expected", [
    ([0, 1, 0], 1),
    ([0, 10, 5, 2], 1),
    ([0, 2, 1, 0], 1),
    ([1, 2, 3, 4, 5, 3], 4),
    ([3, 5, 3, 2, 0], 1),
    ([-5, -1, -3], 1),
    ([1, 2, 3, 9, 8, 7, 6, 5, 4], 3),
    ([24, 69, 100, 99, 79, 78, 67, 36, 26, 19], 2),
])
def test_peak_index(arr, expected):
    assert peak_index(arr) == expected


def test_long_mountain():
    arr = list(range(5000)) + list(range(4998, -1, -1))
    assert peak_index(arr) == 4999
