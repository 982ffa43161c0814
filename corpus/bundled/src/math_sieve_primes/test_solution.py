from solution import primes_up_to
import pytest


@pytest.mark.parametrize("n, expected", [
    (10, [2, 3, 5, 7]),
    (2, [2]),
    (1, []),
    (-5, []),
    (3, [2, 3]),
    (4, [2, 3]),
    (25, [2, 3, 5, 7, 11, 13, 17, 19, 23]),
    (49, [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47]),
])
def test_primes_up_to(n, expected):
    assert primes_up_to(n) == expected


def test_count_below_ten_thousand():
    primes = primes_up_to(10000)
    assert len(primes) == 1229
    assert primes[-1] == 9973
