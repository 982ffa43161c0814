from solution import is_bipartite
import pytest


@pytest.mark.parametrize("adj,expected", [
    ([[1, 3], [0, 2], [1, 3], [0, 2]], True),
    ([[1, 2, 3], [0, 2], [0, 1, 3], [0, 2]], False),
    ([], True),
    ([[]], True),
    ([[1], [0]], True),
    ([[1, 2], [0, 2], [0, 1]], False),
    ([[1], [0], [3], [2]], True),
    ([[1], [0], [3, 4], [2, 4], [2, 3]], False),
    ([[1, 4], [0, 2], [1, 3], [2, 4], [3, 0]], False),
    ([[3], [3], [3], [0, 1, 2]], True),
])
def test_is_bipartite(adj, expected):
    assert is_bipartite(adj) is expected
