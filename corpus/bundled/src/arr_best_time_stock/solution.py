def max_profit(prices):
    if len(prices) < 2:
        return 0
    lowest = prices[0]
    best = 0
    for i in range(1, len(prices)):
        p = prices[i]
        if p - lowest > best:
            best = p - lowest
        if p < lowest:
            lowest = p
    return best
