from solution import MinStack
import pytest


def test_example():
    s = MinStack()
    s.push(3)
    s.push(1)
    s.push(2)
    assert s.get_min() == 1
    assert s.pop() == 2
    assert s.pop() == 1
    assert s.get_min() == 3


def test_empty_errors():
    s = MinStack()
    with pytest.raises(IndexError):
        s.pop()
    with pytest.raises(IndexError):
        s.top()
    with pytest.raises(IndexError):
        s.get_min()


def test_len():
    s = MinStack()
    assert len(s) == 0
    s.push(5)
    s.push(6)
    assert len(s) == 2
    s.pop()
    assert len(s) == 1


def test_duplicate_minimums():
    s = MinStack()
    for x in [2, 1, 1, 3]:
        s.push(x)
    s.pop()
    s.pop()
    assert s.get_min() == 1
    s.pop()
    assert s.get_min() == 2


def test_negative_values():
    s = MinStack()
    s.push(-1)
    s.push(-5)
    s.push(0)
    assert s.get_min() == -5
    assert s.top() == 0


def test_decreasing_then_pop_all():
    s = MinStack()
    for x in [5, 4, 3, 2, 1]:
        s.push(x)
    mins = []
    while len(s) > 0:
        mins.append(s.get_min())
        s.pop()
    assert mins == [1, 2, 3, 4, 5]


def test_top_does_not_remove():
    s = MinStack()
    s.push(7)
    assert s.top() == 7
    assert s.top() == 7
    assert len(s) == 1
