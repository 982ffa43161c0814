from solution import lower_bound
import pytest


@pytest.mark.parametrize("nums, target, expected", [
    ([1, 2, 2, 2, 5], 2, 1),
    ([1, 3, 5], 4, 2),
    ([1, 3, 5], 9, 3),
    ([], 1, 0),
    ([5], 5, 0),
    ([5], 6, 1),
    ([1, 3, 5], 0, 0),
    ([2, 2, 2], 2, 0),
    ([1, 1, 2, 2, 3, 3], 3, 4),
    ([-5, -3, -1], -2, 2),
])
def test_lower_bound(nums, target, expected):
    assert lower_bound(nums, target) == expected
