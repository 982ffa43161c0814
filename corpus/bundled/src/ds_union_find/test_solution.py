from solution import UnionFind
import pytest


def test_example():
    u = UnionFind(4)
    assert u.union(0, 1) is True
    assert u.union(1, 0) is False
    assert u.count() == 3
    assert u.size_of(1) == 2


def test_initial_state():
    u = UnionFind(5)
    assert u.count() == 5
    assert [u.find(i) for i in range(5)] == [0, 1, 2, 3, 4]
    assert u.size_of(3) == 1


def test_connected_transitive():
    u = UnionFind(6)
    u.union(0, 1)
    u.union(2, 3)
    u.union(1, 3)
    assert u.connected(0, 2) is True
    assert u.connected(0, 4) is False


def test_sizes_after_merges():
    u = UnionFind(7)
    u.union(0, 1)
    u.union(1, 2)
    u.union(3, 4)
    u.union(4, 2)
    assert u.size_of(0) == 5
    assert u.size_of(5) == 1
    assert u.count() == 3


def test_union_self():
    u = UnionFind(2)
    assert u.union(1, 1) is False
    assert u.count() == 2


def test_all_merged():
    u = UnionFind(8)
    for i in range(7):
        u.union(i, i + 1)
    assert u.count() == 1
    assert u.size_of(5) == 8
    assert len({u.find(i) for i in range(8)}) == 1


def test_empty():
    assert UnionFind(0).count() == 0
