from solution import reverse_between, from_list, to_list
import pytest


@pytest.mark.parametrize("values,left,right,expected", [
    ([1, 2, 3, 4, 5], 2, 4, [1, 4, 3, 2, 5]),
    ([], 1, 3, []),
    ([7], 1, 1, [7]),
    ([1, 2], 1, 2, [2, 1]),
    ([1, 2, 3, 4], 1, 4, [4, 3, 2, 1]),
    ([1, 2, 3, 4], 3, 3, [1, 2, 3, 4]),
    ([1, 2, 3, 4, 5], 4, 9, [1, 2, 3, 5, 4]),
    ([1, 2, 3, 4, 5], 0, 2, [2, 1, 3, 4, 5]),
    ([1, 2, 3], 3, 1, [1, 2, 3]),
])
def test_reverse_between(values, left, right, expected):
    assert to_list(reverse_between(from_list(values), left, right)) == expected


def test_nodes_reused_in_place():
    head = from_list([1, 2, 3])
    nodes = {id(head), id(head.next), id(head.next.next)}
    new_head = reverse_between(head, 1, 3)
    got = set()
    n = new_head
    while n is not None:
        got.add(id(n))
        n = n.next
    assert got == nodes
