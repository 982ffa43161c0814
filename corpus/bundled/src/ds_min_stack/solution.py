class MinStack:
    def __init__(self):
        self.items = []
        self.mins = []

    def push(self, x):
        self.items.append(x)
        if len(self.mins) == 0 or x <= self.mins[-1]:
            self.mins.append(x)

    def pop(self):
        if len(self.items) == 0:
            raise IndexError("pop from empty stack")
        x = self.items.pop()
        if x == self.mins[-1]:
            self.mins.pop()
        return x

    def top(self):
        if len(self.items) == 0:
            raise IndexError("top of empty stack")
        return self.items[-1]

    def get_min(self):
        if len(self.mins) == 0:
            raise IndexError("min of empty stack")
        return self.mins[-1]

    def __len__(self):
        return len(self.items)
