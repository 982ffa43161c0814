from solution import classify_number
import pytest


@pytest.mark.parametrize("n, expected", [
    (28, "perfect"),
    (12, "abundant"),
    (1, "deficient"),
    (6, "perfect"),
    (2, "deficient"),
    (16, "deficient"),
    (36, "abundant"),
    (49, "deficient"),
    (496, "perfect"),
    (33550336, "perfect"),
])
def test_classify_number(n, expected):
    assert classify_number(n) == expected
