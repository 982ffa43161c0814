from solution import swap_odd_even_bits
import pytest


@pytest.mark.parametrize("n, expected", [
    (23, 43),
    (1, 2),
    (2, 1),
    (0, 0),
    (3, 3),
    (0xAAAAAAAA, 0x55555555),
    (0x55555555, 0xAAAAAAAA),
    (0xFFFFFFFF, 0xFFFFFFFF),
    (0x80000000, 0x40000000),
    (0b1001, 0b0110),
])
def test_swap_odd_even_bits(n, expected):
    assert swap_odd_even_bits(n) == expected
