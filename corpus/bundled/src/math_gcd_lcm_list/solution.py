def _gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def gcd_lcm(nums):
    g = 0
    l = 1
    for x in nums:
        x = abs(x)
        g = _gcd(g, x)
        if x == 0 or l == 0:
            l = 0
        else:
            l = l // _gcd(l, x) * x
    return (g, l)
