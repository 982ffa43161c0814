def two_sum(nums, target):
    first_index = {}
    for j in range(len(nums)):
        need = target - nums[j]
        if need in first_index:
            return (first_index[need], j)
        if nums[j] not in first_index:
            first_index[nums[j]] = j
    return None
