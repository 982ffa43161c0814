from collections import deque


def print_position(priorities, target):
    n = len(priorities)
    queue = deque()
    for i in range(n):
        queue.append(i)
    printed = 0
    # Between two prints every job is moved to the back at most once, so
    # n * n steps are always enough; the bound guards against endless loops.
    for _ in range(n * n):
        if len(queue) == 0:
            break
        idx = queue.popleft()
        higher = False
        for other in queue:
            if priorities[other] > priorities[idx]:
                higher = True
                break
        if higher:
            queue.append(idx)
            continue
        printed += 1
        if idx == target:
            return printed
    return -1
