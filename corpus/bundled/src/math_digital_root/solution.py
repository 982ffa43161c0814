def digital_root(n):
    steps = 0
    while n >= 10:
        total = 0
        while n > 0:
            total += n % 10
            n //= 10
        n = total
        steps += 1
    return (n, steps)
