from collections import deque


def sliding_window_max(nums, k):
    out = []
    window = deque()
    for i in range(len(nums)):
        while len(window) > 0 and window[0] <= i - k:
            window.popleft()
        while len(window) > 0 and nums[window[-1]] <= nums[i]:
            window.pop()
        window.append(i)
        if i >= k - 1:
            out.append(nums[window[0]])
    return out
