def longest_pal_subseq(s):
    n = len(s)
    if n == 0:
        return 0
    table = [[0] * n for _ in range(n)]
    for i in range(n - 1, -1, -1):
        table[i][i] = 1
        for j in range(i + 1, n):
            if s[i] == s[j]:
                table[i][j] = table[i + 1][j - 1] + 2
            else:
                down = table[i + 1][j]
                left = table[i][j - 1]
                table[i][j] = down if down > left else left
    return table[0][n - 1]
