def knapsack(weights, values, capacity):
    best = [0] * (capacity + 1)
    for i in range(len(weights)):
        w = weights[i]
        v = values[i]
        for cap in range(capacity, w - 1, -1):
            candidate = best[cap - w] + v
            if candidate > best[cap]:
                best[cap] = candidate
    return best[capacity]
