def count_paths(grid):
    if not grid or not grid[0]:
        return 0
    rows = len(grid)
    cols = len(grid[0])
    paths = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == 1:
                paths[r][c] = 0
            elif r == 0 and c == 0:
                paths[r][c] = 1
            else:
                total = 0
                if r > 0:
                    total += paths[r - 1][c]
                if c > 0:
                    total += paths[r][c - 1]
                paths[r][c] = total
    return paths[rows - 1][cols - 1]
