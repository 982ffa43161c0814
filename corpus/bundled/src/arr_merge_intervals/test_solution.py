from solution import merge_intervals
import pytest


@pytest.mark.parametrize("intervals, expected", [
    ([[1, 3], [2, 6], [8, 10], [15, 18]], [[1, 6], [8, 10], [15, 18]]),
    ([[1, 4], [4, 5]], [[1, 5]]),
    ([], []),
    ([[2, 3]], [[2, 3]]),
    ([[5, 6], [1, 2]], [[1, 2], [5, 6]]),
    ([[1, 10], [2, 3], [4, 5]], [[1, 10]]),
    ([[1, 2], [3, 4]], [[1, 2], [3, 4]]),
    ([[6, 8], [1, 9], [2, 4]], [[1, 9]]),
    ([[-5, -1], [-2, 0], [1, 1]], [[-5, 0], [1, 1]]),
])
def test_merge_intervals(intervals, expected):
    assert merge_intervals(intervals) == expected
