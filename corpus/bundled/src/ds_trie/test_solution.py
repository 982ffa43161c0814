from solution import Trie
import pytest


def make(*words):
    t = Trie()
    for w in words:
        t.insert(w)
    return t


def test_example():
    t = make("apple", "app")
    assert t.contains("app") is True
    assert t.contains("ap") is False
    assert t.count_prefix("ap") == 2


def test_empty_trie():
    t = Trie()
    assert t.contains("a") is False
    assert t.starts_with("") is False
    assert t.count_prefix("") == 0


def test_empty_word():
    t = make("")
    assert t.contains("") is True
    assert t.starts_with("") is True


def test_starts_with():
    t = make("car", "cart", "dog")
    assert t.starts_with("ca") is True
    assert t.starts_with("cart") is True
    assert t.starts_with("carts") is False
    assert t.starts_with("x") is False


def test_duplicates_counted():
    t = make("hi", "hi", "him")
    assert t.count_prefix("hi") == 3
    assert t.count_prefix("him") == 1


def test_count_whole_trie():
    t = make("a", "b", "ab", "abc")
    assert t.count_prefix("") == 4
    assert t.count_prefix("a") == 3
    assert t.count_prefix("abcd") == 0


def test_word_longer_than_inserted():
    t = make("go")
    assert t.contains("gone") is False
    assert t.contains("g") is False
    assert t.contains("go") is True
