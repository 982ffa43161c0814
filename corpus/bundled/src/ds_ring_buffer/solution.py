class RingBuffer:
    def __init__(self, capacity):
        self.buf = [None] * capacity
        self.capacity = capacity
        self.start = 0
        self.count = 0

    def push(self, x):
        end = (self.start + self.count) % self.capacity
        self.buf[end] = x
        if self.count == self.capacity:
            self.start = (self.start + 1) % self.capacity
        else:
            self.count += 1

    def pop(self):
        if self.count == 0:
            raise IndexError("pop from empty buffer")
        x = self.buf[self.start]
        self.buf[self.start] = None
        self.start = (self.start + 1) % self.capacity
        self.count -= 1
        return x

    def to_list(self):
        out = []
        for i in range(self.count):
            out.append(self.buf[(self.start + i) % self.capacity])
        return out

    def __len__(self):
        return self.count
