from solution import count_bits_table
import pytest


@pytest.mark.parametrize("n, expected", [
    (0, [0]),
    (1, [0, 1]),
    (2, [0, 1, 1]),
    (5, [0, 1, 1, 2, 1, 2]),
    (8, [0, 1, 1, 2, 1, 2, 2, 3, 1]),
    (16, [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1]),
])
def test_count_bits_table(n, expected):
    assert count_bits_table(n) == expected


def test_large_tail():
    out = count_bits_table(1023)
    assert len(out) == 1024
    assert out[1023] == 10
    assert out[512] == 1
    assert sum(out) == 5120
