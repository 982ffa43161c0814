class _Node:
    def __init__(self, key):
        self.key = key
        self.left = None
        self.right = None


class BST:
    def __init__(self):
        self.root = None

    def insert(self, x):
        if self.root is None:
            self.root = _Node(x)
            return True
        node = self.root
        while True:
            if x == node.key:
                return False
            if x < node.key:
                if node.left is None:
                    node.left = _Node(x)
                    return True
                node = node.left
            else:
                if node.right is None:
                    node.right = _Node(x)
                    return True
                node = node.right

    def contains(self, x):
        node = self.root
        while node is not None:
            if x == node.key:
                return True
            node = node.left if x < node.key else node.right
        return False

    def inorder(self):
        out = []
        stack = []
        node = self.root
        while stack or node is not None:
            while node is not None:
                stack.append(node)
                node = node.left
            node = stack.pop()
            out.append(node.key)
            node = node.right
        return out

    def height(self):
        def h(node):
            if node is None:
                return 0
            return 1 + max(h(node.left), h(node.right))
        return h(self.root)

    def floor(self, x):
        best = None
        node = self.root
        while node is not None:
            if node.key <= x:
                best = node.key
                node = node.right
            else:
                node = node.left
        return best
