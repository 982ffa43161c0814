from solution import lcs_length
import pytest


@pytest.mark.parametrize("a,b,expected", [
    ("abcde", "ace", 3),
    ("abc", "abc", 3),
    ("abc", "def", 0),
    ("", "abc", 0),
    ("abc", "", 0),
    ("AGGTAB", "GXTXAYB", 4),
    ("a", "a", 1),
    ("bl", "yby", 1),
    ("abcba", "abcbcba", 5),
])
def test_lcs_length(a, b, expected):
    assert lcs_length(a, b) == expected
