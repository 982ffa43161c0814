from solution import langtons_ant
import pytest


@pytest.mark.parametrize("steps,expected", [
    (0, 0),
    (1, 1),
    (2, 2),
    (4, 4),
    (5, 3),
    (6, 4),
    (10, 6),
    (100, 20),
    (10000, 720),
])
def test_langtons_ant(steps, expected):
    assert langtons_ant(steps) == expected
