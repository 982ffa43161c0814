from solution import sort_by_frequency
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([1, 1, 2, 2, 2, 3], [2, 2, 2, 1, 1, 3]),
    ([4, 6, 4, 6], [4, 4, 6, 6]),
    ([], []),
    ([7], [7]),
    ([3, 2, 1], [1, 2, 3]),
    ([5, 5, 5, 1], [5, 5, 5, 1]),
    ([1, 9, 9], [9, 9, 1]),
    ([-1, 2, -1, 2, 0, 0, 0], [0, 0, 0, -1, -1, 2, 2]),
    ([2, 3, 1, 3, 2], [2, 2, 3, 3, 1]),
])
def test_sort_by_frequency(nums, expected):
    assert sort_by_frequency(nums) == expected
