from solution import reverse_bits
import pytest


@pytest.mark.parametrize("n, expected", [
    (1, 2147483648),
    (43261596, 964176192),
    (0, 0),
    (2 ** 32 - 1, 2 ** 32 - 1),
    (2147483648, 1),
    (2, 1073741824),
    (0xF0000000, 0x0000000F),
    (4294967293, 3221225471),
    (0x12345678, 0x1E6A2C48),
])
def test_reverse_bits(n, expected):
    assert reverse_bits(n) == expected
