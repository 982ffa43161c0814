from solution import min_cost_stairs
import pytest


@pytest.mark.parametrize("cost,expected", [
    ([10, 15, 20], 15),
    ([1, 100, 1, 1, 1, 100, 1, 1, 100, 1], 6),
    ([], 0),
    ([7], 0),
    ([5, 3], 3),
    ([0, 0, 0, 0], 0),
    ([3, 2, 4, 1, 5], 3),
    ([1, 1, 1, 1, 1, 1], 3),
    ([1000] * 7, 3000),
])
def test_min_cost_stairs(cost, expected):
    assert min_cost_stairs(cost) == expected
