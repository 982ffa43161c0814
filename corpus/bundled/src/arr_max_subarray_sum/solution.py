def max_subarray_sum(nums):
    best = nums[0]
    current = nums[0]
    for i in range(1, len(nums)):
        x = nums[i]
        if current < 0:
            current = x
        else:
            current = current + x
        if current > best:
            best = current
    return best
