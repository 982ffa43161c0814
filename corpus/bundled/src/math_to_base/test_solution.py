from solution import to_base
import pytest


@pytest.mark.parametrize("n, base, expected", [
    (255, 16, "ff"),
    (-10, 2, "-1010"),
    (0, 7, "0"),
    (1, 2, "1"),
    (35, 36, "z"),
    (36, 36, "10"),
    (8, 8, "10"),
    (100, 10, "100"),
    (-255, 16, "-ff"),
    (1000000000000000000, 36, "7lieexzx4kxs"),
])
def test_to_base(n, base, expected):
    assert to_base(n, base) == expected
