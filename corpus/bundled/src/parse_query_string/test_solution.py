from solution import parse_query
import pytest


@pytest.mark.parametrize("qs,expected", [
    ("q=hello+world&tag=a%2Fb&tag=c", {"q": ["hello world"], "tag": ["a/b", "c"]}),
    ("", {}),
    ("a=1", {"a": ["1"]}),
    ("a=1&b=2&a=3", {"a": ["1", "3"], "b": ["2"]}),
    ("flag", {"flag": [""]}),
    ("&&x=&", {"x": [""]}),
    ("k=a=b", {"k": ["a=b"]}),
    ("p=100%25", {"p": ["100%"]}),
    ("p=50%&r=%4", {"p": ["50%"], "r": ["%4"]}),
    ("na%6De=v%41l", {"name": ["vAl"]}),
    ("x=%zz1", {"x": ["%zz1"]}),
])
def test_parse_query(qs, expected):
    assert parse_query(qs) == expected
