from solution import parse_ini
import pytest


def test_example():
    text = "name = demo\n[db]\nhost = localhost\nport=5432\n"
    assert parse_ini(text) == {"name": "demo", "db.host": "localhost", "db.port": "5432"}


def test_empty():
    assert parse_ini("") == {}


def test_comments_and_blanks():
    assert parse_ini("# c\n  ; other\n\n a = 1 \n") == {"a": "1"}


def test_value_with_equals():
    assert parse_ini("url = a=b=c") == {"url": "a=b=c"}


def test_empty_value():
    assert parse_ini("[s]\nk =\n") == {"s.k": ""}


def test_override():
    assert parse_ini("x = 1\nx = 2\n[s]\nx = 3\n") == {"x": "2", "s.x": "3"}


def test_multiple_sections():
    text = "[a]\nk=1\n[ b ]\nk=2\n[a]\nj=3"
    assert parse_ini(text) == {"a.k": "1", "b.k": "2", "a.j": "3"}


def test_junk_lines_ignored():
    assert parse_ini("garbage\n[s]\nnot a pair\nok = yes") == {"s.ok": "yes"}
