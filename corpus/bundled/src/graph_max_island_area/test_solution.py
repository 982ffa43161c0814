from solution import max_island_area
import pytest


@pytest.mark.parametrize("grid,expected", [
    ([[1, 1, 0], [0, 1, 0], [0, 0, 1]], 3),
    ([], 0),
    ([[0, 0], [0, 0]], 0),
    ([[1]], 1),
    ([[1, 0, 1], [0, 1, 0], [1, 0, 1]], 1),
    ([[1, 1], [1, 1]], 4),
    ([[1, 0, 1, 1, 1]], 3),
    ([[1], [1], [0], [1]], 2),
    ([[0, 1, 1, 0], [0, 0, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1]], 6),
])
def test_max_island_area(grid, expected):
    assert max_island_area(grid) == expected
