from solution import bellman_ford
import pytest


@pytest.mark.parametrize("n,edges,src,expected", [
    (3, [[0, 1, 4], [0, 2, 5], [1, 2, -3]], 0, [0, 4, 1]),
    (1, [], 0, [0]),
    (3, [[0, 1, 2]], 0, [0, 2, None]),
    (2, [[0, 1, 1], [1, 0, -2]], 0, None),
    (4, [[0, 1, 1], [2, 3, -1], [3, 2, -1]], 0, [0, 1, None, None]),
    (4, [[0, 1, 5], [1, 2, -2], [2, 3, -2], [0, 3, 2]], 0, [0, 5, 3, 1]),
    (5, [[3, 4, 1], [2, 3, 1], [1, 2, 1], [0, 1, 1]], 0, [0, 1, 2, 3, 4]),
    (3, [[0, 1, -1], [1, 2, -1], [0, 2, -1]], 0, [0, -1, -2]),
    (3, [[1, 1, -1], [0, 2, 3]], 0, [0, None, 3]),
])
def test_bellman_ford(n, edges, src, expected):
    assert bellman_ford(n, edges, src) == expected
