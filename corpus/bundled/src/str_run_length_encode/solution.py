def rle_encode(s):
    out = []
    i = 0
    n = len(s)
    while i < n:
        j = i
        while j < n and s[j] == s[i]:
            j += 1
        count = j - i
        out.append(s[i])
        if count > 1:
            out.append(str(count))
        i = j
    return "".join(out)
