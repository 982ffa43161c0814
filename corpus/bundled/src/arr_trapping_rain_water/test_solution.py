from solution import trap_water
import pytest


@pytest.mark.parametrize("heights, expected", [
    ([0, 1, 0, 2, 1, 0, 1, 3, 2, 1, 2, 1], 6),
    ([4, 2, 0, 3, 2, 5], 9),
    ([], 0),
    ([5], 0),
    ([3, 0], 0),
    ([3, 0, 3], 3),
    ([1, 2, 3, 4], 0),
    ([4, 3, 2, 1], 0),
    ([5, 1, 1, 1, 2], 3),
    ([2, 0, 2, 0, 2], 4),
])
def test_trap_water(heights, expected):
    assert trap_water(heights) == expected
