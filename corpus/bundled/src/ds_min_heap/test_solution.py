from solution import MinHeap
import pytest


def drain(h):
    out = []
    while len(h) > 0:
        out.append(h.pop())
    return out


def test_example():
    h = MinHeap()
    for x in [5, 1, 3]:
        h.push(x)
    assert drain(h) == [1, 3, 5]


def test_empty_raises():
    h = MinHeap()
    with pytest.raises(IndexError):
        h.pop()
    with pytest.raises(IndexError):
        h.peek()


def test_single():
    h = MinHeap()
    h.push(9)
    assert h.peek() == 9
    assert h.pop() == 9
    assert len(h) == 0


def test_duplicates_and_negatives():
    h = MinHeap()
    for x in [3, -1, 3, 0, -1, 7]:
        h.push(x)
    assert drain(h) == [-1, -1, 0, 3, 3, 7]


def test_descending_input():
    h = MinHeap()
    for x in range(10, 0, -1):
        h.push(x)
    assert drain(h) == list(range(1, 11))


def test_mixed_push_pop():
    h = MinHeap()
    out = []
    for x in [8, 4, 6]:
        h.push(x)
    out.append(h.pop())
    h.push(1)
    h.push(9)
    out.append(h.pop())
    out.append(h.pop())
    out.append(h.peek())
    assert out == [4, 1, 6, 8]
    assert len(h) == 2


def test_sorting_fixed_sequence():
    values = [15, 3, 9, 27, 1, 12, 3, 8, 20, 5, 0, 14]
    h = MinHeap()
    for v in values:
        h.push(v)
    assert drain(h) == [0, 1, 3, 3, 5, 8, 9, 12, 14, 15, 20, 27]
