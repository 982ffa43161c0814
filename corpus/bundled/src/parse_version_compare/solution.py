def compare_versions(a, b):
    pa = a.split(".")
    pb = b.split(".")
    n = max(len(pa), len(pb))
    for i in range(n):
        x = int(pa[i]) if i < len(pa) else 0
        y = int(pb[i]) if i < len(pb) else 0
        if x < y:
            return -1
        if x > y:
            return 1
    return 0
