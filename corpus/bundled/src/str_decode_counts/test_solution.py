from solution import decode_counts
import pytest


@pytest.mark.parametrize("s, expected", [
    ("a3bc2", "aaabcc"),
    ("x10", "x" * 10),
    ("", ""),
    ("a", "a"),
    ("abc", "abc"),
    ("a1b1", "ab"),
    ("q2w3", "qqwww"),
    ("m123", "m" * 123),
    ("a2a2", "aaaa"),
])
def test_decode_counts(s, expected):
    assert decode_counts(s) == expected
