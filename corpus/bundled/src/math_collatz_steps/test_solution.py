from solution import collatz_steps
import pytest


@pytest.mark.parametrize("n, expected", [
    (6, (8, 16)),
    (1, (0, 1)),
    (2, (1, 2)),
    (3, (7, 16)),
    (4, (2, 4)),
    (7, (16, 52)),
    (16, (4, 16)),
    (27, (111, 9232)),
])
def test_collatz_steps(n, expected):
    assert collatz_steps(n) == expected
