from solution import window_max
import pytest


@pytest.mark.parametrize("nums,k,expected", [
    ([1, 3, -1, -3, 5, 3, 6, 7], 3, [3, 3, 5, 5, 6, 7]),
    ([], 2, []),
    ([4], 1, [4]),
    ([1, 2], 3, []),
    ([5, 4, 3, 2, 1], 2, [5, 4, 3, 2]),
    ([1, 2, 3, 4, 5], 2, [2, 3, 4, 5]),
    ([2, 2, 2], 2, [2, 2]),
    ([9, 1, 1, 1, 1], 4, [9, 1]),
    ([-4, -2, -7, -1], 4, [-1]),
    ([1, -1, 5, 2, 0], 1, [1, -1, 5, 2, 0]),
])
def test_window_max(nums, k, expected):
    assert window_max(nums, k) == expected
