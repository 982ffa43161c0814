from solution import gcd_lcm
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([12, 18, 24], (6, 72)),
    ([-4, 6], (2, 12)),
    ([], (0, 1)),
    ([7], (7, 7)),
    ([0, 5], (5, 0)),
    ([0], (0, 0)),
    ([3, 5, 7], (1, 105)),
    ([8, 8], (8, 8)),
    ([2, 3, 4, 5, 6], (1, 60)),
    ([1000000, 999999], (1, 999999000000)),
])
def test_gcd_lcm(nums, expected):
    assert gcd_lcm(nums) == expected
