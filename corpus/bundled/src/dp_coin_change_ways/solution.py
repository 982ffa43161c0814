def count_ways(coins, amount):
    ways = [0] * (amount + 1)
    ways[0] = 1
    for c in coins:
        for total in range(c, amount + 1):
            ways[total] += ways[total - c]
    return ways[amount]
