def h_index(citations):
    ordered = sorted(citations, reverse=True)
    h = 0
    for i in range(len(ordered)):
        if ordered[i] >= i + 1:
            h = i + 1
        else:
            break
    return h
