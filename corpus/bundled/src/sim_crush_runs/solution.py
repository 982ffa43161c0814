def crush(s):
    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(s):
            j = i
            while j < len(s) and s[j] == s[i]:
                j += 1
            if j - i >= 3:
                s = s[:i] + s[j:]
                changed = True
                break
            i = j
    return s
