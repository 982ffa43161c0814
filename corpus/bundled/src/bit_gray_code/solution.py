def gray_code(n):
    out = []
    for i in range(1 << n):
        out.append(i ^ (i >> 1))
    return out
