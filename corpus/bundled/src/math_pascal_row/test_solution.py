from solution import pascal_row
import pytest


@pytest.mark.parametrize("n, expected", [
    (0, [1]),
    (1, [1, 1]),
    (2, [1, 2, 1]),
    (3, [1, 3, 3, 1]),
    (4, [1, 4, 6, 4, 1]),
    (6, [1, 6, 15, 20, 15, 6, 1]),
    (10, [1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1]),
])
def test_pascal_row(n, expected):
    assert pascal_row(n) == expected


def test_large_row_sum_and_middle():
    row = pascal_row(30)
    assert len(row) == 31
    assert sum(row) == 2 ** 30
    assert row[15] == 155117520
