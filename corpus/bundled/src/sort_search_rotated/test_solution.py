from solution import search_rotated
import pytest


@pytest.mark.parametrize("nums, target, expected", [
    ([4, 5, 6, 7, 0, 1, 2], 0, 4),
    ([4, 5, 6, 7, 0, 1, 2], 3, -1),
    ([], 1, -1),
    ([1], 1, 0),
    ([1], 0, -1),
    ([3, 1], 1, 1),
    ([3, 1], 3, 0),
    ([5, 1, 3], 5, 0),
    ([4, 5, 6, 7, 0, 1, 2], 2, 6),
    ([6, 7, 1, 2, 3, 4, 5], 7, 1),
    ([1, 2, 3, 4, 5], 4, 3),
    ([2, 3, 4, 5, 1], 1, 4),
])
def test_search_rotated(nums, target, expected):
    assert search_rotated(nums, target) == expected
