def next_greater(nums):
    result = [-1] * len(nums)
    stack = []
    for i in range(len(nums)):
        while len(stack) > 0 and nums[stack[-1]] < nums[i]:
            j = stack.pop()
            result[j] = nums[i]
        stack.append(i)
    return result
