def next_power_of_two(n):
    v = n - 1
    shift = 1
    while shift <= 32:
        v = v | (v >> shift)
        shift = shift * 2
    return v + 1
