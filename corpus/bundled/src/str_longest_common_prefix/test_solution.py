from solution import longest_common_prefix
import pytest


@pytest.mark.parametrize("words, expected", [
    (["flower", "flow", "flight"], "fl"),
    (["dog", "racecar", "car"], ""),
    ([], ""),
    (["alone"], "alone"),
    (["", "abc"], ""),
    (["abc", "abc"], "abc"),
    (["abcd", "ab"], "ab"),
    (["ab", "abcd", "abx"], "ab"),
    (["interview", "internet", "interval", "intern"], "inter"),
    (["a", "b"], ""),
])
def test_longest_common_prefix(words, expected):
    assert longest_common_prefix(words) == expected
