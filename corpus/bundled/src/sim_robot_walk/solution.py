def robot_walk(commands, obstacles):
    blocked = set(obstacles)
    dx = [0, 1, 0, -1]
    dy = [1, 0, -1, 0]
    heading = 0
    x = 0
    y = 0
    for cmd in commands:
        if cmd == "L":
            heading = (heading + 3) % 4
        elif cmd == "R":
            heading = (heading + 1) % 4
        else:
            steps = int(cmd)
            for _ in range(steps):
                nx = x + dx[heading]
                ny = y + dy[heading]
                if (nx, ny) in blocked:
                    break
                x = nx
                y = ny
    return (x, y)
