from solution import rotate_right
import pytest


@pytest.mark.parametrize("nums, k, expected", [
    ([1, 2, 3, 4, 5, 6, 7], 3, [5, 6, 7, 1, 2, 3, 4]),
    ([1, 2], 5, [2, 1]),
    ([], 4, []),
    ([9], 100, [9]),
    ([1, 2, 3], 0, [1, 2, 3]),
    ([1, 2, 3], 3, [1, 2, 3]),
    ([1, 2, 3], 1, [3, 1, 2]),
    ([-1, -100, 3, 99], 2, [3, 99, -1, -100]),
])
def test_rotate_right(nums, k, expected):
    assert rotate_right(nums, k) == expected


def test_does_not_modify_input():
    nums = [1, 2, 3, 4]
    assert rotate_right(nums, 1) == [4, 1, 2, 3]
    assert nums == [1, 2, 3, 4]
