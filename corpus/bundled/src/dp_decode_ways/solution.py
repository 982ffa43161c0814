def num_decodings(s):
    n = len(s)
    ways = [0] * (n + 1)
    ways[0] = 1
    for i in range(1, n + 1):
        if s[i - 1] != "0":
            ways[i] += ways[i - 1]
        if i >= 2 and s[i - 2] != "0":
            pair = int(s[i - 2:i])
            if pair <= 26:
                ways[i] += ways[i - 2]
    return ways[n]
