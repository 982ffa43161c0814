class TimeMap:
    def __init__(self):
        self.store = {}

    def set(self, key, value, timestamp):
        if key not in self.store:
            self.store[key] = []
        self.store[key].append((timestamp, value))

    def get(self, key, timestamp):
        entries = self.store.get(key)
        if not entries:
            return ""
        lo = 0
        hi = len(entries) - 1
        found = -1
        while lo <= hi:
            mid = (lo + hi) // 2
            if entries[mid][0] <= timestamp:
                found = mid
                lo = mid + 1
            else:
                hi = mid - 1
        if found == -1:
            return ""
        return entries[found][1]
