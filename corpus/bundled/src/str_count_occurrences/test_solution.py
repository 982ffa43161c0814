from solution import count_occurrences
import pytest


@pytest.mark.parametrize("text, pattern, expected", [
    ("aaaa", "aa", 3),
    ("abababa", "aba", 3),
    ("", "a", 0),
    ("abc", "", 0),
    ("abc", "abc", 1),
    ("ab", "abc", 0),
    ("abcabc", "c", 2),
    ("hello", "xyz", 0),
    ("aaaaa", "a", 5),
    ("abcab", "ab", 2),
])
def test_count_occurrences(text, pattern, expected):
    assert count_occurrences(text, pattern) == expected
