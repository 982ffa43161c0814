def max_island_area(grid):
    rows = len(grid)
    cols = len(grid[0]) if rows else 0
    seen = set()
    best = 0
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == 0 or (r, c) in seen:
                continue
            seen.add((r, c))
            stack = [(r, c)]
            area = 0
            while stack:
                y, x = stack.pop()
                area += 1
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if ny < 0 or ny >= rows or nx < 0 or nx >= cols:
                        continue
                    if grid[ny][nx] == 1 and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
            if area > best:
                best = area
    return best
