from solution import next_greater
import pytest


@pytest.mark.parametrize("nums,expected", [
    ([2, 1, 2, 4, 3], [4, 2, 4, -1, -1]),
    ([], []),
    ([5], [-1]),
    ([1, 2, 3], [2, 3, -1]),
    ([3, 2, 1], [-1, -1, -1]),
    ([2, 2, 3], [3, 3, -1]),
    ([1, 5, 2, 6, 0], [5, 6, 6, -1, -1]),
    ([-3, -5, -1], [-1, -1, -1]),
    ([4, 1, 1, 1, 9], [9, 9, 9, 9, -1]),
])
def test_next_greater(nums, expected):
    assert next_greater(nums) == expected
