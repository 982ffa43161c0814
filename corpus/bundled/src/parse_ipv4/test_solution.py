from solution import is_ipv4
import pytest


@pytest.mark.parametrize("s,expected", [
    ("192.168.0.1", True),
    ("256.1.1.1", False),
    ("01.1.1.1", False),
    ("0.0.0.0", True),
    ("255.255.255.255", True),
    ("1.2.3", False),
    ("1.2.3.4.5", False),
    ("1..2.3", False),
    ("1.2.3.a", False),
    ("1.2.3.-4", False),
    ("", False),
    ("10.0.100.200", True),
])
def test_is_ipv4(s, expected):
    assert is_ipv4(s) is expected
