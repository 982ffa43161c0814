from solution import maze_steps
import pytest


@pytest.mark.parametrize("maze,expected", [
    (["S.#", "..#", "#.E"], 4),
    (["SE"], 1),
    (["S#E"], -1),
    (["S", ".", ".", "E"], 3),
    (["E..", "##.", "S.."], 6),
    (["S....", "####.", "E...."], 10),
    (["S.", "#.", "E#"], -1),
    (["....", ".S#.", ".##.", "...E"], 6),
    (["E.S"], 2),
])
def test_maze_steps(maze, expected):
    assert maze_steps(maze) == expected
