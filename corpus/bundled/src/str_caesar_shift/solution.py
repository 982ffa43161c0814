def caesar_shift(s, k):
    k = k % 26
    out = []
    for c in s:
        if "a" <= c <= "z":
            out.append(chr((ord(c) - ord("a") + k) % 26 + ord("a")))
        elif "A" <= c <= "Z":
            out.append(chr((ord(c) - ord("A") + k) % 26 + ord("A")))
        else:
            out.append(c)
    return "".join(out)
