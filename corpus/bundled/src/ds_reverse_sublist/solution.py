class ListNode:
    def __init__(self, val, next=None):
        self.val = val
        self.next = next


def from_list(values):
    head = None
    for v in reversed(values):
        head = ListNode(v, head)
    return head


def to_list(head):
    out = []
    while head is not None:
        out.append(head.val)
        head = head.next
    return out


def reverse_between(head, left, right):
    length = 0
    node = head
    while node is not None:
        length += 1
        node = node.next
    if left < 1:
        left = 1
    if right > length:
        right = length
    if left >= right:
        return head
    dummy = ListNode(0, head)
    before = dummy
    for _ in range(left - 1):
        before = before.next
    first = before.next
    prev = None
    cur = first
    for _ in range(right - left + 1):
        nxt = cur.next
        cur.next = prev
        prev = cur
        cur = nxt
    before.next = prev
    first.next = cur
    return dummy.next
