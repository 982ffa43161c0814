def life_step(board):
    rows = len(board)
    result = []
    for r in range(rows):
        cols = len(board[r])
        row = []
        for c in range(cols):
            alive = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if dr == 0 and dc == 0:
                        continue
                    nr = r + dr
                    nc = c + dc
                    if 0 <= nr < rows and 0 <= nc < cols and board[nr][nc] == "#":
                        alive += 1
            if board[r][c] == "#" and (alive == 2 or alive == 3):
                row.append("#")
            elif board[r][c] == "." and alive == 3:
                row.append("#")
            else:
                row.append(".")
        result.append("".join(row))
    return result
