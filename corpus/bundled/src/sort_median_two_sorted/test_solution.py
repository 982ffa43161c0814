from solution import median_of_two
import pytest


@pytest.mark.parametrize("a, b, expected", [
    ([1, 3], [2], 2.0),
    ([1, 2], [3, 4], 2.5),
    ([], [5], 5.0),
    ([7], [], 7.0),
    ([], [1, 2], 1.5),
    ([1, 1], [1, 1], 1.0),
    ([1, 5, 9], [2, 3], 3.0),
    ([-5, 3, 6, 12, 15], [-12, -10, -6, -3, 4, 10], 3.0),
    ([2, 3], [1, 4, 5, 6], 3.5),
    ([10, 20, 30], [1, 2, 3], 6.5),
])
def test_median_of_two(a, b, expected):
    assert median_of_two(a, b) == pytest.approx(expected)
