from solution import StackQueue
import pytest


def test_example():
    q = StackQueue()
    q.enqueue(1)
    q.enqueue(2)
    assert q.dequeue() == 1
    q.enqueue(3)
    assert q.dequeue() == 2
    assert q.dequeue() == 3


def test_empty_dequeue_raises():
    with pytest.raises(IndexError):
        StackQueue().dequeue()


def test_empty_peek_raises():
    with pytest.raises(IndexError):
        StackQueue().peek()


def test_peek_keeps_item():
    q = StackQueue()
    q.enqueue("a")
    q.enqueue("b")
    assert q.peek() == "a"
    assert q.peek() == "a"
    assert len(q) == 2


def test_fifo_order_many():
    q = StackQueue()
    for i in range(6):
        q.enqueue(i)
    assert [q.dequeue() for _ in range(6)] == [0, 1, 2, 3, 4, 5]


def test_interleaved():
    q = StackQueue()
    out = []
    q.enqueue(1)
    q.enqueue(2)
    out.append(q.dequeue())
    q.enqueue(3)
    q.enqueue(4)
    out.append(q.dequeue())
    out.append(q.dequeue())
    q.enqueue(5)
    out.append(q.dequeue())
    out.append(q.dequeue())
    assert out == [1, 2, 3, 4, 5]


def test_len_tracking():
    q = StackQueue()
    assert len(q) == 0
    q.enqueue(1)
    q.enqueue(2)
    q.dequeue()
    q.enqueue(3)
    assert len(q) == 2
