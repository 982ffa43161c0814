def pascal_row(n):
    row = [1]
    for i in range(1, n + 1):
        row.append(1)
        for j in range(i - 1, 0, -1):
            row[j] = row[j] + row[j - 1]
    return row
