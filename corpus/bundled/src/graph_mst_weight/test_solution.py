from solution import mst_weight
import pytest


@pytest.mark.parametrize("n,edges,expected", [
    (4, [[0, 1, 1], [1, 2, 2], [0, 2, 3], [2, 3, 4]], 7),
    (1, [], 0),
    (2, [], -1),
    (2, [[0, 1, 5], [1, 0, 3]], 3),
    (3, [[0, 1, -2], [1, 2, -3], [0, 2, 1]], -5),
    (4, [[0, 1, 1], [2, 3, 1]], -1),
    (5, [[0, 1, 2], [0, 3, 6], [1, 2, 3], [1, 3, 8], [1, 4, 5], [2, 4, 7], [3, 4, 9]], 16),
    (3, [[0, 0, 1], [0, 1, 4], [1, 2, 4], [0, 2, 4]], 8),
])
def test_mst_weight(n, edges, expected):
    assert mst_weight(n, edges) == expected
