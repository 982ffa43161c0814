from solution import prime_factors
import pytest


@pytest.mark.parametrize("n, expected", [
    (360, [2, 2, 2, 3, 3, 5]),
    (97, [97]),
    (1, []),
    (2, [2]),
    (4, [2, 2]),
    (9, [3, 3]),
    (49, [7, 7]),
    (30, [2, 3, 5]),
    (1024, [2] * 10),
    (600851475143, [71, 839, 1471, 6857]),
])
def test_prime_factors(n, expected):
    assert prime_factors(n) == expected
