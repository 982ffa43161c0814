from solution import insertion_sort
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([3, 1, 2], ([1, 2, 3], 2)),
    ([1, 2, 3], ([1, 2, 3], 0)),
    ([], ([], 0)),
    ([7], ([7], 0)),
    ([2, 1], ([1, 2], 1)),
    ([4, 3, 2, 1], ([1, 2, 3, 4], 6)),
    ([2, 2, 1], ([1, 2, 2], 2)),
    ([5, -1, 5, 0], ([-1, 0, 5, 5], 3)),
    ([1, 3, 2, 3, 1], ([1, 1, 2, 3, 3], 4)),
])
def test_insertion_sort(nums, expected):
    assert insertion_sort(nums) == expected


def test_input_not_modified():
    nums = [3, 2, 1]
    insertion_sort(nums)
    assert nums == [3, 2, 1]
