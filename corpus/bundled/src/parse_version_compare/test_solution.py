from solution import compare_versions
import pytest


@pytest.mark.parametrize("a,b,expected", [
    ("1.2.10", "1.10", -1),
    ("1.01", "1.001", 0),
    ("1.0", "1", 0),
    ("1", "1.0.0.1", -1),
    ("2", "10", -1),
    ("10", "9.99", 1),
    ("0.1", "0.0.9", 1),
    ("3.4.5", "3.4.5", 0),
    ("1.2.0.0.0", "1.2", 0),
    ("7.5.2.4", "7.5.3", -1),
])
def test_compare_versions(a, b, expected):
    assert compare_versions(a, b) == expected
