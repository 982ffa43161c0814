from solution import pow_mod
import pytest


@pytest.mark.parametrize("base, exp, mod, expected", [
    (2, 10, 1000, 24),
    (3, 0, 7, 1),
    (5, 0, 1, 0),
    (7, 1, 10, 7),
    (-2, 3, 5, 2),
    (10, 9, 7, 6),
    (2, 62, 1000000007, 145586002),
    (123456789, 1000000006, 1000000007, 1),
    (0, 5, 13, 0),
    (3, 5, 100, 43),
])
def test_pow_mod(base, exp, mod, expected):
    assert pow_mod(base, exp, mod) == expected
