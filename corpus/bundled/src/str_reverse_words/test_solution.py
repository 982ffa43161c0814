from solution import reverse_words
import pytest


@pytest.mark.parametrize("s, expected", [
    ("the sky is blue", "blue is sky the"),
    ("  hello   world  ", "world hello"),
    ("", ""),
    ("     ", ""),
    ("single", "single"),
    ("a b", "b a"),
    ("x  y   z", "z y x"),
    ("trailing ", "trailing"),
    (" leading", "leading"),
    ("don't stop-me now!", "now! stop-me don't"),
])
def test_reverse_words(s, expected):
    assert reverse_words(s) == expected
