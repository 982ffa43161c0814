def decode_counts(s):
    out = []
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        i += 1
        count = 0
        while i < n and s[i].isdigit():
            count = count * 10 + (ord(s[i]) - ord("0"))
            i += 1
        if count == 0:
            count = 1
        out.append(c * count)
    return "".join(out)
