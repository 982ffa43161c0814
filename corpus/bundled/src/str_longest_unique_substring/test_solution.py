from solution import longest_unique_substring
import pytest


@pytest.mark.parametrize("s, expected", [
    ("abcabcbb", 3),
    ("pwwkew", 3),
    ("", 0),
    ("a", 1),
    ("bbbbb", 1),
    ("abcdef", 6),
    ("abba", 2),
    ("dvdf", 3),
    ("tmmzuxt", 5),
    ("a b c a", 3),
])
def test_longest_unique_substring(s, expected):
    assert longest_unique_substring(s) == expected
