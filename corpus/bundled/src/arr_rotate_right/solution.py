def rotate_right(nums, k):
    n = len(nums)
    if n == 0:
        return []
    k = k % n
    out = [0] * n
    for i in range(n):
        out[(i + k) % n] = nums[i]
    return out
