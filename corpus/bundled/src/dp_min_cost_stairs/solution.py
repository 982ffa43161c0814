def min_cost_stairs(cost):
    n = len(cost)
    if n < 2:
        return 0
    prev2 = 0
    prev1 = 0
    for i in range(2, n + 1):
        take_one = prev1 + cost[i - 1]
        take_two = prev2 + cost[i - 2]
        cur = take_one if take_one < take_two else take_two
        prev2 = prev1
        prev1 = cur
    return prev1
