from solution import max_subarray
import pytest


@pytest.mark.parametrize("nums,expected", [
    ([-2, 1, -3, 4, -1, 2, 1, -5, 4], 6),
    ([1], 1),
    ([-7], -7),
    ([-3, -1, -2], -1),
    ([5, 4, -1, 7, 8], 23),
    ([0, 0, 0], 0),
    ([2, -1, 2, -1, 2], 4),
    ([-1, 3, -5, 4, 6, -1], 10),
    ([10000] * 5 + [-1], 50000),
])
def test_max_subarray(nums, expected):
    assert max_subarray(nums) == expected
