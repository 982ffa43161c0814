from solution import has_cycle
import pytest


@pytest.mark.parametrize("n,edges,expected", [
    (3, [[0, 1], [1, 2], [2, 0]], True),
    (3, [[0, 1], [0, 2], [1, 2]], False),
    (0, [], False),
    (1, [[0, 0]], True),
    (2, [[0, 1], [1, 0]], True),
    (4, [[0, 1], [2, 3]], False),
    (5, [[0, 1], [1, 2], [3, 4], [4, 3]], True),
    (4, [[0, 1], [0, 1], [1, 2], [2, 3]], False),
    (4, [[3, 2], [2, 1], [1, 0]], False),
])
def test_has_cycle(n, edges, expected):
    assert has_cycle(n, edges) is expected
