from solution import kth_smallest
import pytest


@pytest.mark.parametrize("nums, k, expected", [
    ([3, 2, 1, 5, 6, 4], 2, 2),
    ([3, 2, 3, 1, 2, 4, 5, 5, 6], 4, 3),
    ([7], 1, 7),
    ([2, 1], 1, 1),
    ([2, 1], 2, 2),
    ([5, 5, 5, 5], 3, 5),
    ([9, 8, 7, 6, 5, 4, 3, 2, 1], 9, 9),
    ([9, 8, 7, 6, 5, 4, 3, 2, 1], 1, 1),
    ([-1, -10, 4, 0], 2, -1),
    ([4, 1, 4, 1, 4], 3, 4),
])
def test_kth_smallest(nums, k, expected):
    assert kth_smallest(nums, k) == expected
