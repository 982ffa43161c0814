from solution import word_wrap
import pytest


@pytest.mark.parametrize("text, width, expected", [
    ("the quick brown fox", 10, ["the quick", "brown fox"]),
    ("a bb ccc", 3, ["a", "bb", "ccc"]),
    ("", 5, []),
    ("   ", 5, []),
    ("hello", 5, ["hello"]),
    ("a b c d", 3, ["a b", "c d"]),
    ("a b c d", 4, ["a b", "c d"]),
    ("tiny enormousword x", 6, ["tiny", "enormousword", "x"]),
    ("one two", 7, ["one two"]),
    ("one two", 6, ["one", "two"]),
])
def test_word_wrap(text, width, expected):
    assert word_wrap(text, width) == expected
