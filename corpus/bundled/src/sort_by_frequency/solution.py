def sort_by_frequency(nums):
    counts = {}
    for x in nums:
        counts[x] = counts.get(x, 0) + 1
    values = list(counts.keys())
    for i in range(1, len(values)):
        v = values[i]
        j = i - 1
        while j >= 0 and (counts[values[j]] < counts[v] or
                          (counts[values[j]] == counts[v] and values[j] > v)):
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v
    out = []
    for v in values:
        out.extend([v] * counts[v])
    return out
