from solution import rle_encode
import pytest


@pytest.mark.parametrize("s, expected", [
    ("aaabccdddd", "a3bc2d4"),
    ("abc", "abc"),
    ("", ""),
    ("a", "a"),
    ("aa", "a2"),
    ("z" * 12, "z12"),
    ("aabbaa", "a2b2a2"),
    ("  x", " 2x"),
    ("abbb", "ab3"),
])
def test_rle_encode(s, expected):
    assert rle_encode(s) == expected
