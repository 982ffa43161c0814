from solution import column_title
import pytest


@pytest.mark.parametrize("n, expected", [
    (28, "AB"),
    (701, "ZY"),
    (1, "A"),
    (26, "Z"),
    (27, "AA"),
    (52, "AZ"),
    (53, "BA"),
    (702, "ZZ"),
    (703, "AAA"),
    (2147483647, "FXSHRXW"),
])
def test_column_title(n, expected):
    assert column_title(n) == expected
