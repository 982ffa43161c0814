from solution import count_components
import pytest


@pytest.mark.parametrize("n,edges,expected", [
    (5, [[0, 1], [1, 2], [3, 4]], 2),
    (0, [], 0),
    (1, [], 1),
    (4, [], 4),
    (5, [[0, 1], [1, 2], [2, 3], [3, 4]], 1),
    (3, [[0, 1], [1, 2], [2, 0]], 1),
    (4, [[0, 1], [0, 1], [1, 0]], 3),
    (6, [[0, 5], [1, 4], [2, 3], [5, 4]], 2),
    (3, [[1, 1]], 3),
])
def test_count_components(n, edges, expected):
    assert count_components(n, edges) == expected
