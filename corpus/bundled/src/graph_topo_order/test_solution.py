from solution import topo_order
import pytest


@pytest.mark.parametrize("n,edges,expected", [
    (4, [[1, 0], [2, 0], [3, 1]], [2, 3, 1, 0]),
    (0, [], []),
    (1, [], [0]),
    (3, [], [0, 1, 2]),
    (2, [[0, 1], [1, 0]], []),
    (3, [[2, 1], [1, 0]], [2, 1, 0]),
    (5, [[0, 3], [1, 3], [3, 4], [2, 4]], [0, 1, 2, 3, 4]),
    (4, [[3, 0], [3, 0], [0, 1]], [2, 3, 0, 1]),
    (3, [[0, 1], [1, 1]], []),
])
def test_topo_order(n, edges, expected):
    assert topo_order(n, edges) == expected
