from solution import ladder_length
import pytest


@pytest.mark.parametrize("begin,end,words,expected", [
    ("hit", "cog", ["hot", "dot", "dog", "lot", "log", "cog"], 5),
    ("hit", "cog", ["hot", "dot", "dog", "lot", "log"], 0),
    ("a", "c", ["a", "b", "c"], 2),
    ("abc", "abc", [], 1),
    ("ab", "cd", ["ad", "cd"], 3),
    ("ab", "cd", ["xy", "cd"], 0),
    ("cat", "dog", ["cot", "cog", "dog", "bat", "bog"], 4),
    ("lead", "gold", ["load", "goad", "gold", "lend"], 4),
    ("aaa", "bbb", ["aab", "abb", "bbb", "baa", "bba"], 4),
])
def test_ladder_length(begin, end, words, expected):
    assert ladder_length(begin, end, words) == expected
