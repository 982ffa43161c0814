def langtons_ant(steps):
    black = set()
    dx = [0, 1, 0, -1]
    dy = [1, 0, -1, 0]
    heading = 0
    x = 0
    y = 0
    for _ in range(steps):
        if (x, y) in black:
            heading = (heading + 3) % 4
            black.remove((x, y))
        else:
            heading = (heading + 1) % 4
            black.add((x, y))
        x += dx[heading]
        y += dy[heading]
    return len(black)
