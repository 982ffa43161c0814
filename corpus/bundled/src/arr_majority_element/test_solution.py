from solution import majority_element
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([2, 2, 1, 1, 1, 2, 2], 2),
    ([1, 2, 3], None),
    ([], None),
    ([7], 7),
    ([3, 3], 3),
    ([1, 2], None),
    ([1, 1, 2, 2], None),
    ([5, 5, 1, 5], 5),
    ([4, 1, 4, 2, 4], 4),
    ([0, 0, -1, -1, -1], -1),
])
def test_majority_element(nums, expected):
    assert majority_element(nums) == expected
