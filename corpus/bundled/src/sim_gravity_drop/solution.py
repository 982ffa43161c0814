def apply_gravity(box):
    rows = len(box)
    if rows == 0:
        return []
    cols = len(box[0])
    grid = [list(row) for row in box]
    for c in range(cols):
        floor = rows - 1
        for r in range(rows - 1, -1, -1):
            cell = grid[r][c]
            if cell == "#":
                floor = r - 1
            elif cell == "o":
                grid[r][c] = "."
                grid[floor][c] = "o"
                floor -= 1
    return ["".join(row) for row in grid]
