from solution import HitCounter
import pytest


def test_example():
    c = HitCounter()
    for t in (1, 2, 3):
        c.hit(t)
    assert c.get_hits(4) == 3
    c.hit(300)
    assert c.get_hits(300) == 4
    assert c.get_hits(301) == 3


def test_no_hits():
    assert HitCounter().get_hits(100) == 0


def test_same_second():
    c = HitCounter()
    for _ in range(5):
        c.hit(10)
    assert c.get_hits(10) == 5


def test_window_boundary():
    c = HitCounter()
    c.hit(100)
    assert c.get_hits(399) == 1
    assert c.get_hits(400) == 0


def test_everything_expires():
    c = HitCounter()
    for t in range(1, 11):
        c.hit(t)
    assert c.get_hits(1000) == 0
    c.hit(1000)
    assert c.get_hits(1000) == 1


def test_custom_window():
    c = HitCounter(window=10)
    for t in (1, 5, 9, 11, 15):
        c.hit(t)
    assert c.get_hits(15) == 3
    assert c.get_hits(19) == 2
    assert c.get_hits(21) == 1


def test_memory_bounded():
    c = HitCounter(window=5)
    for t in range(100):
        c.hit(t)
    assert len(c.times) == 5
