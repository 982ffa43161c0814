def max_subarray(nums):
    best = nums[0]
    current = nums[0]
    for i in range(1, len(nums)):
        x = nums[i]
        if current + x > x:
            current = current + x
        else:
            current = x
        if current > best:
            best = current
    return best
