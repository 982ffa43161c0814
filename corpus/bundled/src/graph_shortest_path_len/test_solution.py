from solution import shortest_path_len
import pytest


@pytest.mark.parametrize("n,edges,src,dst,expected", [
    (4, [[0, 1], [1, 2], [2, 3], [0, 2]], 0, 3, 2),
    (1, [], 0, 0, 0),
    (3, [], 0, 2, -1),
    (2, [[0, 1]], 1, 0, 1),
    (5, [[0, 1], [1, 2], [3, 4]], 0, 4, -1),
    (6, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]], 0, 5, 5),
    (6, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0]], 0, 4, 2),
    (3, [[0, 1], [0, 1], [1, 2]], 2, 0, 2),
    (4, [[0, 0], [1, 1], [2, 3]], 3, 2, 1),
])
def test_shortest_path_len(n, edges, src, dst, expected):
    assert shortest_path_len(n, edges, src, dst) == expected
