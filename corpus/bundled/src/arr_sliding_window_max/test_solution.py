from solution import sliding_window_max
import pytest


@pytest.mark.parametrize("nums, k, expected", [
    ([1, 3, -1, -3, 5, 3, 6, 7], 3, [3, 3, 5, 5, 6, 7]),
    ([4, 2], 1, [4, 2]),
    ([], 2, []),
    ([1, 2], 3, []),
    ([5], 1, [5]),
    ([1, 2, 3, 4], 4, [4]),
    ([9, 8, 7, 6], 2, [9, 8, 7]),
    ([1, 3, 1, 2, 0, 5], 3, [3, 3, 2, 5]),
    ([2, 2, 2], 2, [2, 2]),
    ([-5, -1, -3], 2, [-1, -1]),
])
def test_sliding_window_max(nums, k, expected):
    assert sliding_window_max(nums, k) == expected
