from solution import dedupe_at_most_two
import pytest


@pytest.mark.parametrize("nums, expected", [
    ([1, 1, 1, 2, 2, 3], [1, 1, 2, 2, 3]),
    ([0, 0, 1, 1, 1, 1, 2, 3, 3], [0, 0, 1, 1, 2, 3, 3]),
    ([], []),
    ([4], [4]),
    ([4, 4], [4, 4]),
    ([4, 4, 4, 4, 4], [4, 4]),
    ([1, 2, 3], [1, 2, 3]),
    ([-2, -2, -2, -1, 0, 0, 0], [-2, -2, -1, 0, 0]),
])
def test_dedupe_at_most_two(nums, expected):
    data = list(nums)
    k = dedupe_at_most_two(data)
    assert k == len(expected)
    assert data[:k] == expected
