from solution import move_zeros
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([0, 1, 0, 3, 12], [1, 3, 12, 0, 0]),
    ([0], [0]),
    ([], []),
    ([4, 5], [4, 5]),
    ([0, 0, 7], [7, 0, 0]),
    ([7, 0, 0], [7, 0, 0]),
    ([-1, 0, -2, 0, 3], [-1, -2, 3, 0, 0]),
    ([0, 0, 0], [0, 0, 0]),
])
def test_move_zeros(nums, expected):
    assert move_zeros(nums) == expected


def test_in_place():
    nums = [0, 2, 0, 1]
    result = move_zeros(nums)
    assert result is nums
    assert nums == [2, 1, 0, 0]
