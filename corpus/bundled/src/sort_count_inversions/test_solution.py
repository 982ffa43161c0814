from solution import count_inversions
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([2, 4, 1, 3, 5], 3),
    ([5, 4, 3, 2, 1], 10),
    ([], 0),
    ([1], 0),
    ([1, 2], 0),
    ([2, 1], 1),
    ([2, 2, 2], 0),
    ([3, 1, 2, 3, 1], 5),
    ([1, 20, 6, 4, 5], 5),
])
def test_count_inversions(nums, expected):
    assert count_inversions(nums) == expected


def test_reverse_of_two_hundred():
    assert count_inversions(list(range(200, 0, -1))) == 200 * 199 // 2
