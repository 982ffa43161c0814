from collections import deque


def window_max(nums, k):
    result = []
    window = deque()
    for i in range(len(nums)):
        while window and nums[window[-1]] <= nums[i]:
            window.pop()
        window.append(i)
        if window[0] <= i - k:
            window.popleft()
        if i >= k - 1:
            result.append(nums[window[0]])
    return result
