def min_coins(coins, amount):
    inf = amount + 1
    best = [inf] * (amount + 1)
    best[0] = 0
    for total in range(1, amount + 1):
        for c in coins:
            if c <= total and best[total - c] + 1 < best[total]:
                best[total] = best[total - c] + 1
    if best[amount] > amount:
        return -1
    return best[amount]
