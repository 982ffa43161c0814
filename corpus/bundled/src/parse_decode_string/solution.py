def decode_string(s):
    stack = []
    current = ""
    count = 0
    for ch in s:
        if ch.isdigit():
            count = count * 10 + int(ch)
        elif ch == "[":
            stack.append((current, count))
            current = ""
            count = 0
        elif ch == "]":
            prefix, times = stack.pop()
            current = prefix + current * times
        else:
            current += ch
    return current
