from solution import rotate_clockwise
import pytest


@pytest.mark.parametrize("matrix,expected", [
    ([[1, 2], [3, 4]], [[3, 1], [4, 2]]),
    ([], []),
    ([[5]], [[5]]),
    ([[1, 2, 3]], [[1], [2], [3]]),
    ([[1], [2], [3]], [[3, 2, 1]]),
    ([[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[7, 4, 1], [8, 5, 2], [9, 6, 3]]),
    ([[1, 2, 3], [4, 5, 6]], [[4, 1], [5, 2], [6, 3]]),
])
def test_rotate_clockwise(matrix, expected):
    assert rotate_clockwise(matrix) == expected


def test_input_unchanged():
    m = [[1, 2], [3, 4]]
    rotate_clockwise(m)
    assert m == [[1, 2], [3, 4]]
