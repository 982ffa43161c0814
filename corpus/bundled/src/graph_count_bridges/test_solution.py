from solution import count_bridges
import pytest


@pytest.mark.parametrize("n,edges,expected", [
    (4, [[0, 1], [1, 2], [2, 0], [1, 3]], 1),
    (1, [], 0),
    (2, [[0, 1]], 1),
    (3, [[0, 1], [1, 2]], 2),
    (3, [[0, 1], [1, 2], [2, 0]], 0),
    (5, [[0, 1], [2, 3], [3, 4]], 3),
    (6, [[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 5], [5, 3]], 1),
    (5, [[0, 1], [0, 2], [0, 3], [0, 4]], 4),
    (4, [[0, 1], [1, 2], [2, 3], [3, 0]], 0),
    (7, [[0, 1], [1, 2], [2, 0], [1, 3], [3, 4], [4, 5], [5, 3], [4, 6]], 2),
])
def test_count_bridges(n, edges, expected):
    assert count_bridges(n, edges) == expected
