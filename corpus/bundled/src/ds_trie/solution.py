class _Node:
    def __init__(self):
        self.children = {}
        self.ends = 0
        self.passing = 0


class Trie:
    def __init__(self):
        self.root = _Node()

    def insert(self, word):
        node = self.root
        node.passing += 1
        for ch in word:
            if ch not in node.children:
                node.children[ch] = _Node()
            node = node.children[ch]
            node.passing += 1
        node.ends += 1

    def _walk(self, prefix):
        node = self.root
        for ch in prefix:
            node = node.children.get(ch)
            if node is None:
                return None
        return node

    def contains(self, word):
        node = self._walk(word)
        return node is not None and node.ends > 0

    def starts_with(self, prefix):
        node = self._walk(prefix)
        return node is not None and node.passing > 0

    def count_prefix(self, prefix):
        node = self._walk(prefix)
        if node is None:
            return 0
        return node.passing
