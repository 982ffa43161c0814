from solution import range_sums
import pytest


@pytest.mark.parametrize("nums, queries, expected", [
    ([1, 2, 3, 4], [(0, 3), (1, 2), (2, 2)], [10, 5, 3]),
    ([], [], []),
    ([7], [(0, 0)], [7]),
    ([5, -2, 9], [(0, 0), (2, 2), (0, 2)], [5, 9, 12]),
    ([3, 1, 4, 1, 5], [(1, 3)], [6]),
    ([3, 1, 4, 1, 5], [(3, 1)], [0]),
    ([-1, -1, -1], [(0, 1), (1, 2)], [-2, -2]),
    ([10, 20, 30], [(2, 2), (0, 1), (1, 2), (0, 2)], [30, 30, 50, 60]),
])
def test_range_sums(nums, queries, expected):
    assert range_sums(nums, queries) == expected
