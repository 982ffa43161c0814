def first_unique_char(s):
    counts = {}
    for c in s:
        counts[c] = counts.get(c, 0) + 1
    for i in range(len(s)):
        if counts[s[i]] == 1:
            return i
    return -1
