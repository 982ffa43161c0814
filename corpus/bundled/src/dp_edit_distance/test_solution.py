from solution import edit_distance
import pytest


@pytest.mark.parametrize("a,b,expected", [
    ("horse", "ros", 3),
    ("intention", "execution", 5),
    ("", "", 0),
    ("", "abc", 3),
    ("abcd", "", 4),
    ("same", "same", 0),
    ("a", "b", 1),
    ("kitten", "sitting", 3),
    ("ab", "ba", 2),
    ("abcdef", "azced", 3),
])
def test_edit_distance(a, b, expected):
    assert edit_distance(a, b) == expected
