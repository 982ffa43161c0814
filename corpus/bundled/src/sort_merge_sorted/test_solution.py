from solution import merge_sorted
import pytest


@pytest.mark.parametrize("a, b, expected", [
    ([1, 3, 5], [2, 4, 6], [1, 2, 3, 4, 5, 6]),
    ([], [1], [1]),
    ([2], [], [2]),
    ([], [], []),
    ([1, 2, 3], [4, 5], [1, 2, 3, 4, 5]),
    ([4, 5], [1, 2, 3], [1, 2, 3, 4, 5]),
    ([1, 1], [1], [1, 1, 1]),
    ([-3, 0, 7], [-5, 0, 8, 9], [-5, -3, 0, 0, 7, 8, 9]),
])
def test_merge_sorted(a, b, expected):
    assert merge_sorted(a, b) == expected


def test_stable_for_equal_values():
    class V(int):
        pass
    x = V(2)
    y = V(2)
    out = merge_sorted([x], [y])
    assert out[0] is x and out[1] is y
