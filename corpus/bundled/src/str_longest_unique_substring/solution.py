def longest_unique_substring(s):
    last = {}
    start = 0
    best = 0
    for i in range(len(s)):
        c = s[i]
        if c in last and last[c] >= start:
            start = last[c] + 1
        last[c] = i
        length = i - start + 1
        if length > best:
            best = length
    return best
