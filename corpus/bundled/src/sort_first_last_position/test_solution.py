from solution import search_range
import pytest


@pytest.mark.parametrize("nums, target, expected", [
    ([5, 7, 7, 8, 8, 10], 8, (3, 4)),
    ([5, 7, 7, 8, 8, 10], 6, (-1, -1)),
    ([], 0, (-1, -1)),
    ([1], 1, (0, 0)),
    ([1], 2, (-1, -1)),
    ([2, 2, 2, 2], 2, (0, 3)),
    ([1, 2, 3], 3, (2, 2)),
    ([1, 2, 3], 1, (0, 0)),
    ([1, 2, 3], 4, (-1, -1)),
    ([-3, -3, 0, 4, 4, 4], -3, (0, 1)),
])
def test_search_range(nums, target, expected):
    assert search_range(nums, target) == expected
