from solution import decode_string
import pytest


@pytest.mark.parametrize("s,expected", [
    ("3[a]2[bc]", "aaabcbc"),
    ("3[a2[c]]", "accaccacc"),
    ("", ""),
    ("abc", "abc"),
    ("1[x]", "x"),
    ("2[abc]3[cd]ef", "abcabccdcdcdef"),
    ("10[z]", "zzzzzzzzzz"),
    ("a2[b2[c]]d", "abccbccd"),
    ("2[]x", "x"),
])
def test_decode_string(s, expected):
    assert decode_string(s) == expected
