def fib_mod(n, m):
    a = 0
    b = 1 % m
    for _ in range(n):
        a, b = b, (a + b) % m
    return a % m
