def longest_increasing_run(nums):
    if len(nums) == 0:
        return 0
    best = 1
    run = 1
    for i in range(1, len(nums)):
        if nums[i] > nums[i - 1]:
            run += 1
        else:
            run = 1
        if run > best:
            best = run
    return best
