from solution import max_profit
import pytest


@pytest.mark.parametrize("prices, expected", [
    ([7, 1, 5, 3, 6, 4], 5),
    ([7, 6, 4, 3, 1], 0),
    ([], 0),
    ([3], 0),
    ([1, 2], 1),
    ([2, 1], 0),
    ([3, 3, 3], 0),
    ([2, 4, 1, 7], 6),
    ([5, 9, 1, 3], 4),
    ([0, 10000], 10000),
])
def test_max_profit(prices, expected):
    assert max_profit(prices) == expected
