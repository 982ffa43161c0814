from solution import knapsack
import pytest


@pytest.mark.parametrize("weights,values,capacity,expected", [
    ([1, 3, 4, 5], [1, 4, 5, 7], 7, 9),
    ([], [], 10, 0),
    ([5], [10], 4, 0),
    ([5], [10], 5, 10),
    ([2, 2, 2], [3, 3, 3], 5, 6),
    ([1, 2, 3], [6, 10, 12], 5, 22),
    ([4, 4, 4], [5, 5, 5], 0, 0),
    ([10, 20, 30], [60, 100, 120], 50, 220),
    ([1, 1, 1, 1], [1, 2, 3, 4], 2, 7),
])
def test_knapsack(weights, values, capacity, expected):
    assert knapsack(weights, values, capacity) == expected
