from solution import dijkstra
import pytest


@pytest.mark.parametrize("n,edges,src,expected", [
    (3, [[0, 1, 4], [0, 2, 1], [2, 1, 2]], 0, [0, 3, 1]),
    (1, [], 0, [0]),
    (3, [[0, 1, 5]], 0, [0, 5, -1]),
    (3, [[0, 1, 5]], 1, [-1, 0, -1]),
    (2, [[0, 1, 9], [0, 1, 3]], 0, [0, 3]),
    (4, [[0, 1, 0], [1, 2, 0], [2, 3, 7]], 0, [0, 0, 0, 7]),
    (5, [[0, 1, 10], [0, 2, 3], [2, 1, 4], [1, 3, 2], [2, 3, 8], [3, 4, 7], [2, 4, 20]], 0, [0, 7, 3, 9, 16]),
    (4, [[1, 0, 1], [2, 1, 1], [3, 2, 1]], 3, [3, 2, 1, 0]),
])
def test_dijkstra(n, edges, src, expected):
    assert dijkstra(n, edges, src) == expected
