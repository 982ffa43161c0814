from solution import count_islands
import pytest


@pytest.mark.parametrize("grid,expected", [
    (["110", "010", "001"], 2),
    ([], 0),
    (["0"], 0),
    (["1"], 1),
    (["111", "111"], 1),
    (["101", "010", "101"], 5),
    (["11000", "11000", "00100", "00011"], 3),
    (["1001"], 2),
    (["1", "0", "1", "1"], 2),
    (["0110", "1001", "0110"], 4),
])
def test_count_islands(grid, expected):
    assert count_islands(grid) == expected
