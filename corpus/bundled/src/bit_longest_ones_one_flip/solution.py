def longest_ones_after_flip(n):
    current = 0
    previous = 0
    best = 1
    for i in range(32):
        if (n >> i) & 1:
            current += 1
        else:
            previous = current
            current = 0
        length = previous + current + 1
        if length > best:
            best = length
    if best > 32:
        best = 32
    return best
