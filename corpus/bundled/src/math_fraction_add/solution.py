def _gcd(a, b):
    a = abs(a)
    b = abs(b)
    while b > 0:
        a, b = b, a % b
    return a


def add_fractions(a, b):
    num = a[0] * b[1] + b[0] * a[1]
    den = a[1] * b[1]
    if den < 0:
        num = -num
        den = -den
    if num == 0:
        return (0, 1)
    g = _gcd(num, den)
    return (num // g, den // g)
