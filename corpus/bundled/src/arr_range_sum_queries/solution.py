def range_sums(nums, queries):
    prefix = [0] * (len(nums) + 1)
    for i in range(len(nums)):
        prefix[i + 1] = prefix[i] + nums[i]
    out = []
    for l, r in queries:
        if l > r:
            out.append(0)
        else:
            out.append(prefix[r + 1] - prefix[l])
    return out
