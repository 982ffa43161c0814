def subsets(items):
    n = len(items)
    out = []
    for mask in range(1 << n):
        chosen = []
        for i in range(n):
            if (mask >> i) & 1:
                chosen.append(items[i])
        out.append(chosen)
    return out
