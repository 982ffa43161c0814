def flood_fill(image, row, col, new_color):
    result = [list(r) for r in image]
    old = result[row][col]
    if old == new_color:
        return result
    rows = len(result)
    cols = len(result[0])
    stack = [(row, col)]
    result[row][col] = new_color
    while stack:
        r, c = stack.pop()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr = r + dr
            nc = c + dc
            if 0 <= nr < rows and 0 <= nc < cols and result[nr][nc] == old:
                result[nr][nc] = new_color
                stack.append((nr, nc))
    return result
