from solution import binary_search
import pytest


@pytest.mark.parametrize("nums, target, expected", [
    ([-1, 0, 3, 5, 9, 12], 9, 4),
    ([-1, 0, 3, 5, 9, 12], 2, -1),
    ([], 3, -1),
    ([4], 4, 0),
    ([4], 5, -1),
    ([1, 3, 5, 7], 1, 0),
    ([1, 3, 5, 7], 7, 3),
    ([1, 3, 5, 7], 8, -1),
    ([1, 3, 5, 7], 0, -1),
    ([2, 4, 6, 8, 10, 12, 14], 6, 2),
])
def test_binary_search(nums, target, expected):
    assert binary_search(nums, target) == expected


def test_large_list_every_other():
    nums = list(range(0, 20000, 2))
    assert binary_search(nums, 15998) == 7999
    assert binary_search(nums, 15999) == -1
