def median_of_two(a, b):
    total = len(a) + len(b)
    i = 0
    j = 0
    prev = 0
    cur = 0
    for _ in range(total // 2 + 1):
        prev = cur
        if i < len(a) and (j >= len(b) or a[i] <= b[j]):
            cur = a[i]
            i += 1
        else:
            cur = b[j]
            j += 1
    if total % 2 == 1:
        return float(cur)
    return (prev + cur) / 2
