from solution import snake_score
import pytest


@pytest.mark.parametrize("width,height,food,moves,expected", [
    (3, 2, [(1, 0), (2, 1)], "RDRU", 2),
    (3, 3, [], "RRDD", 0),
    (2, 2, [(1, 0)], "L", 0),
    (2, 2, [(1, 0)], "RL", 1),
    (1, 1, [], "", 0),
    (4, 1, [(1, 0), (2, 0), (3, 0)], "RRRR", 3),
    (3, 3, [(1, 0), (1, 1), (0, 1)], "RDLU", 3),
    (3, 3, [(1, 0), (1, 1), (0, 1)], "RDLUR", 3),
    (2, 2, [(1, 0), (1, 1)], "RDLU", 2),
    (5, 5, [(0, 3), (0, 0)], "DDDUUU", 2),
])
def test_snake_score(width, height, food, moves, expected):
    assert snake_score(width, height, food, moves) == expected
