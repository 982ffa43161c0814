from solution import rob
import pytest


@pytest.mark.parametrize("money,expected", [
    ([2, 7, 9, 3, 1], 12),
    ([1, 2, 3, 1], 4),
    ([], 0),
    ([5], 5),
    ([5, 9], 9),
    ([9, 5], 9),
    ([2, 1, 1, 2], 4),
    ([0, 0, 0, 0], 0),
    ([4, 1, 2, 7, 5, 3, 1], 14),
    ([100, 1, 1, 100], 200),
])
def test_rob(money, expected):
    assert rob(money) == expected
