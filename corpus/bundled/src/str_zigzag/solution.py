def zigzag(s, rows):
    if rows == 1 or rows >= len(s):
        return s
    lines = [[] for _ in range(rows)]
    row = 0
    step = 1
    for c in s:
        lines[row].append(c)
        if row == 0:
            step = 1
        elif row == rows - 1:
            step = -1
        row += step
    out = []
    for line in lines:
        out.append("".join(line))
    return "".join(out)
