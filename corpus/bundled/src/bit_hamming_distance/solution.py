def hamming_distance(x, y):
    diff = x ^ y
    count = 0
    while diff > 0:
        count += diff & 1
        diff = diff >> 1
    return count
