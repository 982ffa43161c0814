def _first_at_least(nums, target):
    lo = 0
    hi = len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def search_range(nums, target):
    first = _first_at_least(nums, target)
    if first == len(nums) or nums[first] != target:
        return (-1, -1)
    last = _first_at_least(nums, target + 1) - 1
    return (first, last)
