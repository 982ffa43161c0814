from solution import two_sum
import pytest


@pytest.mark.parametrize("nums, target, expected", [
    ([2, 7, 11, 15], 9, (0, 1)),
    ([3, 2, 4], 6, (1, 2)),
    ([], 1, None),
    ([5], 10, None),
    ([3, 3], 6, (0, 1)),
    ([1, 2, 3], 7, None),
    ([-4, 1, 9, -3], -7, (0, 3)),
    ([1, 5, 1, 5], 6, (0, 1)),
    ([0, 4, 0], 0, (0, 2)),
    ([2, 2, 2], 4, (0, 1)),
])
def test_two_sum(nums, target, expected):
    assert two_sum(nums, target) == expected
