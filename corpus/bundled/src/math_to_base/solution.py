DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def to_base(n, base):
    if n == 0:
        return "0"
    negative = n < 0
    if negative:
        n = -n
    out = []
    while n > 0:
        out.append(DIGITS[n % base])
        n = n // base
    if negative:
        out.append("-")
    out.reverse()
    return "".join(out)
