from solution import next_power_of_two
import pytest


@pytest.mark.parametrize("n, expected", [
    (5, 8),
    (16, 16),
    (1, 1),
    (2, 2),
    (3, 4),
    (17, 32),
    (1000, 1024),
    (2 ** 31 + 1, 2 ** 32),
    (2 ** 40 - 5, 2 ** 40),
    (2 ** 62 + 3, 2 ** 63),
])
def test_next_power_of_two(n, expected):
    assert next_power_of_two(n) == expected
