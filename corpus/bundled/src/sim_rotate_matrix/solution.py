def rotate_clockwise(matrix):
    rows = len(matrix)
    if rows == 0:
        return []
    cols = len(matrix[0])
    result = []
    for c in range(cols):
        new_row = []
        for r in range(rows - 1, -1, -1):
            new_row.append(matrix[r][c])
        result.append(new_row)
    return result
