from solution import min_meeting_rooms
import pytest


@pytest.mark.parametrize("meetings, expected", [
    ([(0, 30), (5, 10), (15, 20)], 2),
    ([(7, 10), (2, 4)], 1),
    ([], 0),
    ([(1, 2)], 1),
    ([(1, 5), (5, 10)], 1),
    ([(1, 5), (4, 10)], 2),
    ([(1, 10), (2, 9), (3, 8)], 3),
    ([(1, 3), (2, 4), (3, 5), (4, 6)], 2),
    ([(0, 1), (0, 1), (1, 2), (1, 2)], 2),
])
def test_min_meeting_rooms(meetings, expected):
    assert min_meeting_rooms(meetings) == expected
