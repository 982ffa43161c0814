def lis_length(nums):
    n = len(nums)
    if n == 0:
        return 0
    best = [1] * n
    for i in range(1, n):
        for j in range(i):
            if nums[j] < nums[i] and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    result = 0
    for i in range(n):
        if best[i] > result:
            result = best[i]
    return result
