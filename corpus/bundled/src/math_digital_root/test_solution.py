from solution import digital_root
import pytest


@pytest.mark.parametrize("n, expected", [
    (9875, (2, 3)),
    (7, (7, 0)),
    (0, (0, 0)),
    (9, (9, 0)),
    (10, (1, 1)),
    (19, (1, 2)),
    (99, (9, 2)),
    (100000, (1, 1)),
    (999999999999999999, (9, 2)),
])
def test_digital_root(n, expected):
    assert digital_root(n) == expected
