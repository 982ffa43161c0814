from solution import longest_ones_after_flip
import pytest


@pytest.mark.parametrize("n, expected", [
    (1775, 8),
    (0, 1),
    (1, 2),
    (5, 3),
    (0b1001, 2),
    (0b11100111, 4),
    (0b1110111, 7),
    (0xFFFFFFFF, 32),
    (0x7FFFFFFF, 32),
    (0xFFFF7FFF, 32),
    (0xFFFF3FFF, 17),
])
def test_longest_ones_after_flip(n, expected):
    assert longest_ones_after_flip(n) == expected
