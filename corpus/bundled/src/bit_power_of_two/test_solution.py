from solution import is_power_of_two
import pytest


@pytest.mark.parametrize("n, expected", [
    (16, True),
    (18, False),
    (1, True),
    (0, False),
    (-2, False),
    (-8, False),
    (2, True),
    (3, False),
    (6, False),
    (2 ** 63, True),
    (2 ** 63 - 1, False),
])
def test_is_power_of_two(n, expected):
    assert is_power_of_two(n) is expected
