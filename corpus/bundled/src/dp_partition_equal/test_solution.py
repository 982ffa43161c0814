from solution import can_partition
import pytest


@pytest.mark.parametrize("nums,expected", [
    ([1, 5, 11, 5], True),
    ([1, 2, 3, 5], False),
    ([], True),
    ([1], False),
    ([2, 2], True),
    ([1, 2], False),
    ([3, 3, 3, 4, 5], True),
    ([1, 1, 1, 1, 1, 1, 1, 1, 1, 9], True),
    ([2, 4, 6, 10], False),
    ([100, 100, 100, 100, 99, 101], True),
])
def test_can_partition(nums, expected):
    assert can_partition(nums) is expected
