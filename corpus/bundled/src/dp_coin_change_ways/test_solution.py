from solution import count_ways
import pytest


@pytest.mark.parametrize("coins,amount,expected", [
    ([1, 2, 5], 5, 4),
    ([2], 3, 0),
    ([10], 10, 1),
    ([], 0, 1),
    ([], 7, 0),
    ([3, 5], 0, 1),
    ([1, 2], 4, 3),
    ([2, 3, 5, 6], 10, 5),
    ([1, 5, 10, 25], 100, 242),
])
def test_count_ways(coins, amount, expected):
    assert count_ways(coins, amount) == expected
