def two_single_numbers(nums):
    both = 0
    for x in nums:
        both = both ^ x
    low_bit = both & (-both)
    first = 0
    second = 0
    for x in nums:
        if x & low_bit:
            first = first ^ x
        else:
            second = second ^ x
    if first < second:
        return (first, second)
    return (second, first)
