from solution import count_subarrays_with_sum
import pytest


@pytest.mark.parametrize("nums, k, expected", [
    ([1, 1, 1], 2, 2),
    ([1, 2, 3], 3, 2),
    ([], 0, 0),
    ([5], 5, 1),
    ([5], 4, 0),
    ([0, 0, 0], 0, 6),
    ([1, -1, 1, -1], 0, 4),
    ([3, 4, 7, 2, -3, 1, 4, 2], 7, 4),
    ([-1, -1, 1], 0, 1),
    ([2, 2, 2], 6, 1),
])
def test_count_subarrays_with_sum(nums, k, expected):
    assert count_subarrays_with_sum(nums, k) == expected
