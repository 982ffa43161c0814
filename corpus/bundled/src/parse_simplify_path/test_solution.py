from solution import simplify_path
import pytest


@pytest.mark.parametrize("path,expected", [
    ("/home//foo/", "/home/foo"),
    ("/a/./b/../../c/", "/c"),
    ("/", "/"),
    ("/../", "/"),
    ("/...", "/..."),
    ("/a/b/c", "/a/b/c"),
    ("/a/../../b", "/b"),
    ("//x///y//", "/x/y"),
    ("/a/b/../c/./d/..", "/a/c"),
    ("/.hidden/./..", "/"),
])
def test_simplify_path(path, expected):
    assert simplify_path(path) == expected
