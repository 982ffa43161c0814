def _sort_count(a):
    if len(a) <= 1:
        return a, 0
    mid = len(a) // 2
    left, x = _sort_count(a[:mid])
    right, y = _sort_count(a[mid:])
    merged = []
    count = x + y
    i = 0
    j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            count += len(left) - i
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged, count


def count_inversions(nums):
    return _sort_count(list(nums))[1]
