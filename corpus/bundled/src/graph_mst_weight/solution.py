def mst_weight(n, edges):
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    ordered = sorted(edges, key=lambda e: e[2])
    total = 0
    used = 0
    for u, v, w in ordered:
        ru = find(u)
        rv = find(v)
        if ru == rv:
            continue
        parent[ru] = rv
        total += w
        used += 1
    if used != n - 1:
        return -1
    return total
