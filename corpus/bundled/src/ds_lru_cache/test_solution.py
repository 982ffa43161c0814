from solution import LRUCache
import pytest


def test_example():
    c = LRUCache(2)
    c.put(1, 1)
    c.put(2, 2)
    assert c.get(1) == 1
    c.put(3, 3)
    assert c.get(2) == -1
    assert c.get(3) == 3


def test_missing_key():
    assert LRUCache(3).get(42) == -1


def test_zero_capacity():
    c = LRUCache(0)
    c.put(1, 1)
    assert c.get(1) == -1
    assert len(c) == 0


def test_update_refreshes_recency():
    c = LRUCache(2)
    c.put(1, 1)
    c.put(2, 2)
    c.put(1, 10)
    c.put(3, 3)
    assert c.get(1) == 10
    assert c.get(2) == -1


def test_capacity_one():
    c = LRUCache(1)
    c.put(1, 1)
    c.put(2, 2)
    assert c.get(1) == -1
    assert c.get(2) == 2
    assert len(c) == 1


def test_len_never_exceeds_capacity():
    c = LRUCache(3)
    for k in range(10):
        c.put(k, k * k)
    assert len(c) == 3
    assert [c.get(k) for k in (6, 7, 8, 9)] == [-1, 49, 64, 81]


def test_get_order_matters():
    c = LRUCache(3)
    c.put(1, 1)
    c.put(2, 2)
    c.put(3, 3)
    c.get(1)
    c.get(2)
    c.put(4, 4)
    assert c.get(3) == -1
    assert c.get(1) == 1


def test_update_does_not_grow():
    c = LRUCache(2)
    c.put(5, 1)
    c.put(5, 2)
    assert len(c) == 1
    assert c.get(5) == 2
