from solution import two_single_numbers
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([1, 2, 1, 3, 2, 5], (3, 5)),
    ([0, 1], (0, 1)),
    ([1, 0], (0, 1)),
    ([7, 9], (7, 9)),
    ([4, 6, 4, 8], (6, 8)),
    ([2, 3, 3, 5, 5, 2, 10, 12], (10, 12)),
    ([1, 1, 2, 2, 3, 4], (3, 4)),
    ([1024, 5, 5, 0], (0, 1024)),
    ([2147483647, 2147483646], (2147483646, 2147483647)),
])
def test_two_single_numbers(nums, expected):
    assert two_single_numbers(nums) == expected
