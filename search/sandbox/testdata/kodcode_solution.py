def add(a, b):
    return a + b


def mean(xs):
    if not xs:
        raise ValueError("empty")
    return sum(xs) / len(xs)


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        if not self.items:
            raise IndexError("empty")
        return self.items.pop()


def shout(s):
    print(s.upper())
