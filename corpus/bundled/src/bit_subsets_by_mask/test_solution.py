from solution import subsets
import pytest


@pytest.mark.parametrize("items, expected", [
    ([1, 2, 3], [[], [1], [2], [1, 2], [3], [1, 3], [2, 3], [1, 2, 3]]),
    ([], [[]]),
    (["a"], [[], ["a"]]),
    (["x", "y"], [[], ["x"], ["y"], ["x", "y"]]),
    ([5, 5], [[], [5], [5], [5, 5]]),
])
def test_subsets(items, expected):
    assert subsets(items) == expected


def test_count_and_last():
    out = subsets(list(range(10)))
    assert len(out) == 1024
    assert out[-1] == list(range(10))
    assert out[512] == [9]
