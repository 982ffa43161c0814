def longest_palindrome(s):
    n = len(s)
    best_start = 0
    best_len = 0
    for center in range(2 * n - 1):
        lo = center // 2
        hi = lo + center % 2
        while lo >= 0 and hi < n and s[lo] == s[hi]:
            lo -= 1
            hi += 1
        length = hi - lo - 1
        start = lo + 1
        if length > best_len:
            best_len = length
            best_start = start
    return s[best_start:best_start + best_len]
