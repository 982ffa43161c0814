class MinHeap:
    def __init__(self):
        self.data = []

    def push(self, x):
        self.data.append(x)
        i = len(self.data) - 1
        while i > 0:
            parent = (i - 1) // 2
            if self.data[parent] <= self.data[i]:
                break
            self.data[parent], self.data[i] = self.data[i], self.data[parent]
            i = parent

    def pop(self):
        if len(self.data) == 0:
            raise IndexError("pop from empty heap")
        top = self.data[0]
        last = self.data.pop()
        if len(self.data) > 0:
            self.data[0] = last
            i = 0
            n = len(self.data)
            while True:
                left = 2 * i + 1
                right = left + 1
                smallest = i
                if left < n and self.data[left] < self.data[smallest]:
                    smallest = left
                if right < n and self.data[right] < self.data[smallest]:
                    smallest = right
                if smallest == i:
                    break
                self.data[i], self.data[smallest] = self.data[smallest], self.data[i]
                i = smallest
        return top

    def peek(self):
        if len(self.data) == 0:
            raise IndexError("peek at empty heap")
        return self.data[0]

    def __len__(self):
        return len(self.data)
