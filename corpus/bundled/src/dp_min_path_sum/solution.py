def min_path_sum(grid):
    rows = len(grid)
    cols = len(grid[0])
    cost = [[0] * cols for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            if r == 0 and c == 0:
                cost[r][c] = grid[r][c]
            elif r == 0:
                cost[r][c] = cost[r][c - 1] + grid[r][c]
            elif c == 0:
                cost[r][c] = cost[r - 1][c] + grid[r][c]
            else:
                up = cost[r - 1][c]
                left = cost[r][c - 1]
                cost[r][c] = (up if up < left else left) + grid[r][c]
    return cost[rows - 1][cols - 1]
