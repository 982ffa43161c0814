from solution import BST
import pytest


def make(*keys):
    t = BST()
    for k in keys:
        t.insert(k)
    return t


def test_example():
    t = make(5, 3, 8, 1)
    assert t.inorder() == [1, 3, 5, 8]
    assert t.height() == 3
    assert t.floor(4) == 3


def test_empty():
    t = BST()
    assert t.inorder() == []
    assert t.height() == 0
    assert t.contains(1) is False
    assert t.floor(10) is None


def test_duplicate_insert():
    t = BST()
    assert t.insert(4) is True
    assert t.insert(4) is False
    assert t.inorder() == [4]


def test_contains():
    t = make(10, 5, 15, 12, 20, -3)
    assert [t.contains(k) for k in (10, 12, -3, 11, 21)] == [True, True, True, False, False]


def test_degenerate_height():
    t = make(1, 2, 3, 4, 5, 6)
    assert t.height() == 6
    assert t.inorder() == [1, 2, 3, 4, 5, 6]


def test_balanced_height():
    t = make(4, 2, 6, 1, 3, 5, 7)
    assert t.height() == 3


def test_floor_cases():
    t = make(10, 5, 15, 12, 20)
    assert t.floor(12) == 12
    assert t.floor(14) == 12
    assert t.floor(4) is None
    assert t.floor(100) == 20
    assert t.floor(9) == 5
