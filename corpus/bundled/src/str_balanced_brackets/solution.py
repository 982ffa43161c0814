def is_balanced(s):
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = []
    for c in s:
        if c in "([{":
            stack.append(c)
        elif c in pairs:
            if len(stack) == 0:
                return False
            top = stack.pop()
            if top != pairs[c]:
                return False
    return len(stack) == 0
