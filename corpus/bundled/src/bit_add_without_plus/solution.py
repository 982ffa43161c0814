MASK = 0xFFFFFFFF


def add32(a, b):
    a = a & MASK
    b = b & MASK
    while b != 0:
        carry = ((a & b) << 1) & MASK
        a = (a ^ b) & MASK
        b = carry
    if a > 0x7FFFFFFF:
        return ~(a ^ MASK)
    return a
