from solution import is_prime
import pytest


@pytest.mark.parametrize("n, expected", [
    (97, True),
    (91, False),
    (-7, False),
    (0, False),
    (1, False),
    (2, True),
    (3, True),
    (4, False),
    (9, False),
    (25, False),
    (1000003, True),
    (999999999989, True),
])
def test_is_prime(n, expected):
    assert is_prime(n) is expected
