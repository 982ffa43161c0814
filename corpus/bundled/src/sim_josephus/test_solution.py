from solution import josephus_order
import pytest


@pytest.mark.parametrize("n,k,expected", [
    (7, 3, [3, 6, 2, 7, 5, 1, 4]),
    (0, 3, []),
    (1, 5, [1]),
    (5, 1, [1, 2, 3, 4, 5]),
    (5, 2, [2, 4, 1, 5, 3]),
    (4, 4, [4, 1, 3, 2]),
    (3, 10, [1, 3, 2]),
    (6, 5, [5, 4, 6, 2, 3, 1]),
])
def test_josephus_order(n, k, expected):
    assert josephus_order(n, k) == expected
