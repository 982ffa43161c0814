from solution import longest_pal_subseq
import pytest


@pytest.mark.parametrize("s,expected", [
    ("bbbab", 4),
    ("cbbd", 2),
    ("", 0),
    ("a", 1),
    ("ab", 1),
    ("aa", 2),
    ("racecar", 7),
    ("abcdef", 1),
    ("agbdba", 5),
    ("character", 5),
])
def test_longest_pal_subseq(s, expected):
    assert longest_pal_subseq(s) == expected
