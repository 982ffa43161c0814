class StackQueue:
    def __init__(self):
        self.inbox = []
        self.outbox = []

    def enqueue(self, x):
        self.inbox.append(x)

    def _shift(self):
        if len(self.outbox) == 0:
            while len(self.inbox) > 0:
                self.outbox.append(self.inbox.pop())

    def dequeue(self):
        self._shift()
        if len(self.outbox) == 0:
            raise IndexError("dequeue from empty queue")
        return self.outbox.pop()

    def peek(self):
        self._shift()
        if len(self.outbox) == 0:
            raise IndexError("peek at empty queue")
        return self.outbox[-1]

    def __len__(self):
        return len(self.inbox) + len(self.outbox)
