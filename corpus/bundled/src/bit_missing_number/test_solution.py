from solution import missing_number
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([3, 0, 1], 2),
    ([0, 1], 2),
    ([], 0),
    ([0], 1),
    ([1], 0),
    ([1, 2], 0),
    ([9, 6, 4, 2, 3, 5, 7, 0, 1], 8),
    ([2, 0, 3, 4, 5, 6], 1),
])
def test_missing_number(nums, expected):
    assert missing_number(nums) == expected


def test_large():
    nums = [i for i in range(10001) if i != 4321]
    nums.reverse()
    assert missing_number(nums) == 4321
