from solution import longest_increasing_run
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([1, 3, 5, 4, 7], 3),
    ([2, 2, 2], 1),
    ([], 0),
    ([9], 1),
    ([1, 2, 3, 4], 4),
    ([4, 3, 2, 1], 1),
    ([1, 2, 2, 3, 4, 5], 4),
    ([-3, -2, -1, -5, 0], 3),
    ([5, 1, 2, 1, 2, 3], 3),
])
def test_longest_increasing_run(nums, expected):
    assert longest_increasing_run(nums) == expected
