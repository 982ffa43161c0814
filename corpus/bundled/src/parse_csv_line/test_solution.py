from solution import split_csv
import pytest


@pytest.mark.parametrize("line,expected", [
    ('a,"b,c",,"say ""hi"""', ["a", "b,c", "", 'say "hi"']),
    ("", [""]),
    ("one", ["one"]),
    ("a,b,c", ["a", "b", "c"]),
    (",", ["", ""]),
    ('""', [""]),
    ('"x,y"', ["x,y"]),
    ('"""quoted"""', ['"quoted"']),
    ("1, 2 ,3", ["1", " 2 ", "3"]),
    ('a,"",b,', ["a", "", "b", ""]),
])
def test_split_csv(line, expected):
    assert split_csv(line) == expected
