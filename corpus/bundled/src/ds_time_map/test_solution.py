from solution import TimeMap
import pytest


def make():
    m = TimeMap()
    m.set("k", "a", 1)
    m.set("k", "b", 4)
    m.set("k", "c", 10)
    m.set("other", "x", 5)
    return m


@pytest.mark.parametrize("key,ts,expected", [
    ("k", 3, "a"),
    ("k", 4, "b"),
    ("k", 0, ""),
    ("k", 1, "a"),
    ("k", 9, "b"),
    ("k", 10, "c"),
    ("k", 1000, "c"),
    ("other", 4, ""),
    ("other", 5, "x"),
    ("missing", 5, ""),
])
def test_get(key, ts, expected):
    assert make().get(key, ts) == expected
