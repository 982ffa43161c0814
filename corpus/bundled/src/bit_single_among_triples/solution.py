def single_among_triples(nums):
    result = 0
    for bit in range(32):
        total = 0
        for x in nums:
            total += (x >> bit) & 1
        if total % 3 != 0:
            result |= 1 << bit
    if result >= 1 << 31:
        result -= 1 << 32
    return result
