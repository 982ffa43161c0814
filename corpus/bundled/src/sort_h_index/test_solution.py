from solution import h_index
import pytest


@pytest.mark.parametrize("citations, expected", [
    ([3, 0, 6, 1, 5], 3),
    ([1, 3, 1], 1),
    ([], 0),
    ([0], 0),
    ([5], 1),
    ([0, 0, 0], 0),
    ([10, 10, 10], 3),
    ([4, 4, 4, 4, 4], 4),
    ([100, 2, 2], 2),
    ([1, 1, 9, 9, 9, 2], 3),
])
def test_h_index(citations, expected):
    assert h_index(citations) == expected
