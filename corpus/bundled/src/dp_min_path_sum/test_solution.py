from solution import min_path_sum
import pytest


@pytest.mark.parametrize("grid,expected", [
    ([[1, 3, 1], [1, 5, 1], [4, 2, 1]], 7),
    ([[5]], 5),
    ([[1, 2, 3]], 6),
    ([[1], [2], [3]], 6),
    ([[1, 2, 3], [4, 5, 6]], 12),
    ([[0, 0], [0, 0]], 0),
    ([[1, 100, 1], [1, 100, 1], [1, 1, 1]], 5),
    ([[9, 1, 1], [1, 9, 1], [1, 1, 9]], 21),
    ([[3, 8, 6, 0], [7, 1, 2, 9], [4, 4, 5, 1]], 19),
])
def test_min_path_sum(grid, expected):
    assert min_path_sum(grid) == expected
