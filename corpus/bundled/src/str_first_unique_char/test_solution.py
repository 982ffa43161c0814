from solution import first_unique_char
import pytest


@pytest.mark.parametrize("s, expected", [
    ("leetcode", 0),
    ("loveleetcode", 2),
    ("aabb", -1),
    ("", -1),
    ("z", 0),
    ("aab", 2),
    ("aA", 0),
    ("abcabd", 2),
    ("xxyyzzw", 6),
])
def test_first_unique_char(s, expected):
    assert first_unique_char(s) == expected
