from collections import deque


class HitCounter:
    def __init__(self, window=300):
        self.window = window
        self.times = deque()

    def _expire(self, timestamp):
        while len(self.times) > 0 and self.times[0] <= timestamp - self.window:
            self.times.popleft()

    def hit(self, timestamp):
        self._expire(timestamp)
        self.times.append(timestamp)

    def get_hits(self, timestamp):
        self._expire(timestamp)
        return len(self.times)
