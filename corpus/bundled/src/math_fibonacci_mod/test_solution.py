from solution import fib_mod
import pytest


@pytest.mark.parametrize("n, m, expected", [
    (10, 1000, 55),
    (10, 7, 6),
    (0, 5, 0),
    (1, 5, 1),
    (1, 1, 0),
    (2, 100, 1),
    (3, 100, 2),
    (20, 1000000, 6765),
    (90, 1000000007, 2880067194370816120 % 1000000007),
    (100000, 10, 5),
])
def test_fib_mod(n, m, expected):
    assert fib_mod(n, m) == expected
