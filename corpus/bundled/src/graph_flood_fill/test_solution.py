from solution import flood_fill
import pytest


@pytest.mark.parametrize("image,row,col,color,expected", [
    ([[1, 1, 1], [1, 1, 0], [1, 0, 1]], 1, 1, 2, [[2, 2, 2], [2, 2, 0], [2, 0, 1]]),
    ([[0, 0, 0], [0, 0, 0]], 0, 0, 0, [[0, 0, 0], [0, 0, 0]]),
    ([[5]], 0, 0, 7, [[7]]),
    ([[1, 2], [2, 1]], 0, 0, 3, [[3, 2], [2, 1]]),
    ([[1, 1, 2, 1]], 0, 3, 9, [[1, 1, 2, 9]]),
    ([[0, 1, 0], [1, 1, 1], [0, 1, 0]], 2, 1, 4, [[0, 4, 0], [4, 4, 4], [0, 4, 0]]),
    ([[3], [3], [4], [3]], 0, 0, 1, [[1], [1], [4], [3]]),
])
def test_flood_fill(image, row, col, color, expected):
    assert flood_fill(image, row, col, color) == expected


def test_input_not_modified():
    image = [[1, 1], [1, 0]]
    flood_fill(image, 0, 0, 5)
    assert image == [[1, 1], [1, 0]]
