from solution import FenwickTree
import pytest


def build(values):
    f = FenwickTree(len(values))
    for i, v in enumerate(values):
        f.add(i, v)
    return f


def test_example():
    f = FenwickTree(5)
    f.add(1, 3)
    f.add(3, 4)
    assert f.prefix_sum(2) == 3
    assert f.range_sum(1, 4) == 7


def test_all_zero():
    f = FenwickTree(4)
    assert [f.prefix_sum(i) for i in range(5)] == [0, 0, 0, 0, 0]


def test_prefix_sums():
    f = build([5, 1, 4, 2, 8, 3, 7])
    assert [f.prefix_sum(i) for i in range(8)] == [0, 5, 6, 10, 12, 20, 23, 30]


def test_range_sums():
    f = build([5, 1, 4, 2, 8, 3, 7])
    assert f.range_sum(0, 7) == 30
    assert f.range_sum(2, 5) == 14
    assert f.range_sum(6, 7) == 7
    assert f.range_sum(3, 3) == 0
    assert f.range_sum(5, 2) == 0


def test_negative_updates():
    f = build([1, 2, 3])
    f.add(1, -5)
    assert f.range_sum(0, 3) == 1
    assert f.range_sum(1, 2) == -3


def test_last_position():
    f = FenwickTree(8)
    f.add(7, 11)
    assert f.prefix_sum(7) == 0
    assert f.prefix_sum(8) == 11


def test_repeated_adds_same_index():
    f = FenwickTree(3)
    for _ in range(4):
        f.add(0, 2)
    assert f.range_sum(0, 1) == 8
    assert f.range_sum(1, 3) == 0
