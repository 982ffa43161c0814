from solution import single_among_triples
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([2, 2, 3, 2], 3),
    ([0, 1, 0, 1, 0, 1, 99], 99),
    ([5], 5),
    ([-4], -4),
    ([7, 7, 7, 0], 0),
    ([-2, -2, 1, 1, -2, 1, -3], -3),
    ([-1, 4, 4, 4], -1),
    ([2147483647, 1, 1, 1], 2147483647),
    ([-2147483648, 3, 3, 3], -2147483648),
    ([10, 30, 10, 20, 30, 10, 30], 20),
])
def test_single_among_triples(nums, expected):
    assert single_among_triples(nums) == expected
