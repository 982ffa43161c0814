from solution import print_position
import pytest


@pytest.mark.parametrize("priorities,target,expected", [
    ([2, 1, 3, 2], 2, 1),
    ([1, 1, 9, 1, 1, 1], 0, 5),
    ([5], 0, 1),
    ([1, 2, 3], 0, 3),
    ([3, 2, 1], 0, 1),
    ([2, 2, 2], 1, 2),
    ([2, 1, 3, 2], 0, 3),
    ([2, 1, 3, 2], 3, 2),
    ([1, 3, 1, 3], 2, 4),
    ([4, 9, 4], 2, 2),
])
def test_print_position(priorities, target, expected):
    assert print_position(priorities, target) == expected
