from solution import parse_duration
import pytest


@pytest.mark.parametrize("s,expected", [
    ("1h30m15s", 5415),
    ("90s", 90),
    ("5m1h", -1),
    ("", -1),
    ("2d", 172800),
    ("1d1h1m1s", 90061),
    ("0s", 0),
    ("10", -1),
    ("h", -1),
    ("3x", -1),
    ("1m1m", -1),
    ("12h05s", 43205),
])
def test_parse_duration(s, expected):
    assert parse_duration(s) == expected
