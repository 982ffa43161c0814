def count_subarrays_with_sum(nums, k):
    seen = {0: 1}
    total = 0
    count = 0
    for x in nums:
        total = total + x
        need = total - k
        if need in seen:
            count += seen[need]
        seen[total] = seen.get(total, 0) + 1
    return count
