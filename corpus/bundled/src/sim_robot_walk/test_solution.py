from solution import robot_walk
import pytest


@pytest.mark.parametrize("commands,obstacles,expected", [
    ("2R3", [], (3, 2)),
    ("4", [(0, 2)], (0, 1)),
    ("", [], (0, 0)),
    ("L1", [], (-1, 0)),
    ("RR5", [], (0, -5)),
    ("LLLL2", [], (0, 2)),
    ("R9", [(1, 0)], (0, 0)),
    ("1R1R1R1", [], (0, 0)),
    ("3L2L1", [(-2, 3)], (-1, 2)),
    ("9R9", [(5, 9)], (4, 9)),
])
def test_robot_walk(commands, obstacles, expected):
    assert robot_walk(commands, obstacles) == expected
