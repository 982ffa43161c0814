from solution import sort_colors
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([2, 0, 2, 1, 1, 0], [0, 0, 1, 1, 2, 2]),
    ([2, 0, 1], [0, 1, 2]),
    ([], []),
    ([1], [1]),
    ([2, 2], [2, 2]),
    ([2, 1], [1, 2]),
    ([1, 0], [0, 1]),
    ([0, 0, 0], [0, 0, 0]),
    ([1, 2, 0, 1, 2, 0, 1], [0, 0, 1, 1, 1, 2, 2]),
])
def test_sort_colors(nums, expected):
    assert sort_colors(list(nums)) == expected


def test_sorts_in_place():
    nums = [2, 1, 0]
    out = sort_colors(nums)
    assert out is nums and nums == [0, 1, 2]
