def max_xor_pair(nums):
    answer = 0
    mask = 0
    for bit in range(30, -1, -1):
        mask = mask | (1 << bit)
        prefixes = set()
        for x in nums:
            prefixes.add(x & mask)
        candidate = answer | (1 << bit)
        for p in prefixes:
            if (p ^ candidate) in prefixes:
                answer = candidate
                break
    return answer
