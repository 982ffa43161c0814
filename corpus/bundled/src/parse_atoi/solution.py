def parse_int(s):
    i = 0
    n = len(s)
    while i < n and s[i] == " ":
        i += 1
    sign = 1
    if i < n and (s[i] == "+" or s[i] == "-"):
        if s[i] == "-":
            sign = -1
        i += 1
    value = 0
    while i < n and "0" <= s[i] <= "9":
        value = value * 10 + (ord(s[i]) - ord("0"))
        i += 1
    value = sign * value
    low = -(2 ** 31)
    high = 2 ** 31 - 1
    if value < low:
        return low
    if value > high:
        return high
    return value
