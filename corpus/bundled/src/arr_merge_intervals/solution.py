def merge_intervals(intervals):
    items = sorted(intervals, key=lambda iv: iv[0])
    merged = []
    for start, end in items:
        if len(merged) > 0 and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1][1] = end
        else:
            merged.append([start, end])
    return merged
