from solution import find_min_rotated
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([3, 4, 5, 1, 2], 1),
    ([11, 13, 15, 17], 11),
    ([5], 5),
    ([2, 1], 1),
    ([1, 2], 1),
    ([4, 5, 6, 7, 0, 1, 2], 0),
    ([2, 3, 4, 5, 6, 7, 1], 1),
    ([7, 1, 2, 3, 4, 5, 6], 1),
    ([-2, -1, -9, -8], -9),
])
def test_find_min_rotated(nums, expected):
    assert find_min_rotated(nums) == expected
