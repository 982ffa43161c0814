def kth_smallest(nums, k):
    a = list(nums)
    lo = 0
    hi = len(a) - 1
    target = k - 1
    while lo < hi:
        pivot = a[hi]
        store = lo
        for i in range(lo, hi):
            if a[i] < pivot:
                a[i], a[store] = a[store], a[i]
                store += 1
        a[store], a[hi] = a[hi], a[store]
        if store == target:
            return a[store]
        if store < target:
            lo = store + 1
        else:
            hi = store - 1
    return a[lo]
