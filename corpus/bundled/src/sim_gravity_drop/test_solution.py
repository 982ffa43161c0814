from solution import apply_gravity
import pytest


@pytest.mark.parametrize("box,expected", [
    (["o.", ".o", ".."], ["..", "..", "oo"]),
    ([], []),
    (["o"], ["o"]),
    (["o", "."], [".", "o"]),
    (["o", "o", "."], [".", "o", "o"]),
    (["o", "#", "."], ["o", "#", "."]),
    (["o", ".", "#", "o", "."], [".", "o", "#", ".", "o"]),
    (["oo.", "...", ".#.", "..."], ["...", ".o.", ".#.", "o.."]),
    (["o.o", "o#.", "..o", "..."], ["...", ".#.", "o.o", "o.o"]),
])
def test_apply_gravity(box, expected):
    assert apply_gravity(box) == expected
