from solution import max_xor_pair
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([3, 10, 5, 25, 2, 8], 28),
    ([0], 0),
    ([7], 0),
    ([1, 2], 3),
    ([4, 4], 0),
    ([8, 1, 2, 12, 7, 6], 15),
    ([14, 70, 53, 83, 49, 91, 36, 80, 92, 51, 66, 70], 127),
    ([2147483647, 0], 2147483647),
    ([1073741824, 1073741825, 3], 1073741827),
])
def test_max_xor_pair(nums, expected):
    assert max_xor_pair(nums) == expected
