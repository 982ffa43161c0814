from collections import deque


def round_robin(bursts, quantum):
    remaining = list(bursts)
    done = [0] * len(bursts)
    queue = deque(range(len(bursts)))
    clock = 0
    while queue:
        job = queue.popleft()
        run = quantum if remaining[job] > quantum else remaining[job]
        clock += run
        remaining[job] -= run
        if remaining[job] > 0:
            queue.append(job)
        else:
            done[job] = clock
    return done
