from collections import deque


def ladder_length(begin, end, words):
    if begin == end:
        return 1
    allowed = set(words)
    if end not in allowed:
        return 0
    letters = "abcdefghijklmnopqrstuvwxyz"
    seen = {begin}
    queue = deque([(begin, 1)])
    while queue:
        word, length = queue.popleft()
        for i in range(len(word)):
            for ch in letters:
                if ch == word[i]:
                    continue
                cand = word[:i] + ch + word[i + 1:]
                if cand == end:
                    return length + 1
                if cand in allowed and cand not in seen:
                    seen.add(cand)
                    queue.append((cand, length + 1))
    return 0
