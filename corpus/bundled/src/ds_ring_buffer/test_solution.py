from solution import RingBuffer
import pytest


def test_example():
    r = RingBuffer(3)
    for x in [1, 2, 3, 4]:
        r.push(x)
    assert r.to_list() == [2, 3, 4]
    assert r.pop() == 2


def test_empty():
    r = RingBuffer(2)
    assert len(r) == 0
    assert r.to_list() == []
    with pytest.raises(IndexError):
        r.pop()


def test_not_full():
    r = RingBuffer(4)
    r.push("a")
    r.push("b")
    assert r.to_list() == ["a", "b"]
    assert len(r) == 2


def test_capacity_one():
    r = RingBuffer(1)
    r.push(1)
    r.push(2)
    assert r.to_list() == [2]
    assert r.pop() == 2
    assert len(r) == 0


def test_wraparound_after_pops():
    r = RingBuffer(3)
    r.push(1)
    r.push(2)
    r.pop()
    r.push(3)
    r.push(4)
    assert r.to_list() == [2, 3, 4]
    r.push(5)
    assert r.to_list() == [3, 4, 5]


def test_fifo_pops():
    r = RingBuffer(5)
    for x in range(8):
        r.push(x)
    assert [r.pop() for _ in range(5)] == [3, 4, 5, 6, 7]
    assert len(r) == 0


def test_exactly_full():
    r = RingBuffer(3)
    for x in [7, 8, 9]:
        r.push(x)
    assert len(r) == 3
    assert r.to_list() == [7, 8, 9]
