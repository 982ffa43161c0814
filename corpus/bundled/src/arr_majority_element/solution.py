def majority_element(nums):
    candidate = None
    count = 0
    for x in nums:
        if count == 0:
            candidate = x
            count = 1
        elif x == candidate:
            count += 1
        else:
            count -= 1
    occurrences = 0
    for x in nums:
        if x == candidate:
            occurrences += 1
    if occurrences > len(nums) // 2:
        return candidate
    return None
