from solution import lis_length
import pytest


@pytest.mark.parametrize("nums,expected", [
    ([10, 9, 2, 5, 3, 7, 101, 18], 4),
    ([], 0),
    ([42], 1),
    ([7, 7, 7, 7], 1),
    ([5, 4, 3, 2, 1], 1),
    ([1, 2, 3, 4, 5, 6], 6),
    ([-3, -1, -2, 0, 5, 4], 4),
    ([0, 1, 0, 3, 2, 3], 4),
    ([3, 10, 2, 1, 20], 3),
])
def test_lis_length(nums, expected):
    assert lis_length(nums) == expected
