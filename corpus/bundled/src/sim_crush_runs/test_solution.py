from solution import crush
import pytest


@pytest.mark.parametrize("s,expected", [
    ("abbbaac", "c"),
    ("", ""),
    ("a", "a"),
    ("aa", "aa"),
    ("aaa", ""),
    ("aaaa", ""),
    ("aabbbac", "c"),
    ("abcabc", "abcabc"),
    ("abbcccbba", "aa"),
    ("xaaabbbx", "xx"),
    ("aabbbaa", ""),
])
def test_crush(s, expected):
    assert crush(s) == expected
