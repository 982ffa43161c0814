def classify_number(n):
    total = 0
    d = 1
    while d * d <= n:
        if n % d == 0:
            total += d
            other = n // d
            if other != d:
                total += other
        d += 1
    total -= n
    if total == n:
        return "perfect"
    if total > n:
        return "abundant"
    return "deficient"
