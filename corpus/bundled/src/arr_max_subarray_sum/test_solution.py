from solution import max_subarray_sum
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([-2, 1, -3, 4, -1, 2, 1, -5, 4], 6),
    ([-3, -1, -2], -1),
    ([5], 5),
    ([-7], -7),
    ([1, 2, 3], 6),
    ([0, 0, 0], 0),
    ([8, -19, 5, -4, 20], 21),
    ([-1, 3, -1, 3, -10, 4], 5),
    ([2, -1, 2, -1, 2], 4),
])
def test_max_subarray_sum(nums, expected):
    assert max_subarray_sum(nums) == expected
