from solution import parking_lot
import pytest


@pytest.mark.parametrize("capacity,events,expected", [
    (1, [("arrive", "A"), ("arrive", "B"), ("leave", "A"), ("arrive", "B")], (1, 1)),
    (3, [], (0, 0)),
    (0, [("arrive", "A")], (1, 0)),
    (2, [("arrive", "A"), ("arrive", "A")], (1, 1)),
    (2, [("arrive", "A"), ("arrive", "B"), ("arrive", "C")], (1, 2)),
    (2, [("leave", "X"), ("arrive", "A"), ("leave", "A"), ("leave", "A"), ("arrive", "B")], (0, 1)),
    (3, [("arrive", "A"), ("arrive", "B"), ("leave", "A"), ("arrive", "C"), ("arrive", "D"), ("arrive", "E")], (1, 3)),
    (1, [("arrive", "A"), ("leave", "A"), ("arrive", "A"), ("leave", "A")], (0, 1)),
])
def test_parking_lot(capacity, events, expected):
    assert parking_lot(capacity, events) == expected
