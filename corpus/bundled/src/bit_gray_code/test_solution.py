from solution import gray_code
import pytest


@pytest.mark.parametrize("n, expected", [
    (0, [0]),
    (1, [0, 1]),
    (2, [0, 1, 3, 2]),
    (3, [0, 1, 3, 2, 6, 7, 5, 4]),
])
def test_gray_code(n, expected):
    assert gray_code(n) == expected


def test_four_bits_prefix_and_length():
    seq = gray_code(4)
    assert len(seq) == 16
    assert seq[8:] == [12, 13, 15, 14, 10, 11, 9, 8]


def test_one_bit_changes():
    seq = gray_code(10)
    for a, b in zip(seq, seq[1:]):
        d = a ^ b
        assert d != 0 and d & (d - 1) == 0


def test_all_distinct():
    seq = gray_code(8)
    assert sorted(seq) == list(range(256))
