from solution import min_coins
import pytest


@pytest.mark.parametrize("coins,amount,expected", [
    ([1, 2, 5], 11, 3),
    ([2], 3, -1),
    ([1], 0, 0),
    ([7], 7, 1),
    ([1, 3, 4], 6, 2),
    ([2, 5, 10, 1], 27, 4),
    ([5, 10], 3, -1),
    ([186, 419, 83, 408], 6249, 20),
    ([3, 7], 11, -1),
    ([1], 5, 5),
])
def test_min_coins(coins, amount, expected):
    assert min_coins(coins, amount) == expected
