def can_partition(nums):
    total = 0
    for x in nums:
        total += x
    if total % 2 == 1:
        return False
    target = total // 2
    reachable = [False] * (target + 1)
    reachable[0] = True
    for x in nums:
        for s in range(target, x - 1, -1):
            if reachable[s - x]:
                reachable[s] = True
    return reachable[target]
