from solution import round_robin
import pytest


@pytest.mark.parametrize("bursts,quantum,expected", [
    ([5, 2, 3], 2, [10, 4, 9]),
    ([], 3, []),
    ([4], 10, [4]),
    ([4], 1, [4]),
    ([3, 3, 3], 3, [3, 6, 9]),
    ([1, 1, 1], 5, [1, 2, 3]),
    ([6, 1, 4], 2, [11, 3, 9]),
    ([2, 5, 2, 5], 1, [5, 13, 7, 14]),
    ([10, 3], 4, [13, 7]),
])
def test_round_robin(bursts, quantum, expected):
    assert round_robin(bursts, quantum) == expected
