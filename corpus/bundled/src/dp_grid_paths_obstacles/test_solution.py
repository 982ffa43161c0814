from solution import count_paths
import pytest


@pytest.mark.parametrize("grid,expected", [
    ([[0, 0, 0], [0, 1, 0], [0, 0, 0]], 2),
    ([[0]], 1),
    ([[1]], 0),
    ([], 0),
    ([[0, 1], [0, 0]], 1),
    ([[0, 0], [0, 1]], 0),
    ([[0, 0, 0, 0]], 1),
    ([[0], [0], [1], [0]], 0),
    ([[0, 0, 0], [0, 0, 0], [0, 0, 0]], 6),
    ([[0, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]], 3),
])
def test_count_paths(grid, expected):
    assert count_paths(grid) == expected
