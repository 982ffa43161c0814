from collections import deque


def snake_score(width, height, food, moves):
    body = deque([(0, 0)])
    occupied = {(0, 0)}
    deltas = {"U": (0, -1), "D": (0, 1), "L": (-1, 0), "R": (1, 0)}
    score = 0
    for m in moves:
        dx, dy = deltas[m]
        hx, hy = body[0]
        nx = hx + dx
        ny = hy + dy
        if nx < 0 or nx >= width or ny < 0 or ny >= height:
            break
        eating = score < len(food) and (nx, ny) == tuple(food[score])
        if not eating:
            tail = body.pop()
            occupied.remove(tail)
        if (nx, ny) in occupied:
            break
        body.appendleft((nx, ny))
        occupied.add((nx, ny))
        if eating:
            score += 1
    return score
