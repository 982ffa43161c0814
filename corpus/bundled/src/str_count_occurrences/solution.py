def count_occurrences(text, pattern):
    m = len(pattern)
    n = len(text)
    if m == 0 or m > n:
        return 0
    count = 0
    for i in range(n - m + 1):
        j = 0
        while j < m and text[i + j] == pattern[j]:
            j += 1
        if j == m:
            count += 1
    return count
