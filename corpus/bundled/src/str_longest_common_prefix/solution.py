def longest_common_prefix(words):
    if len(words) == 0:
        return ""
    first = words[0]
    length = len(first)
    for w in words[1:]:
        k = 0
        while k < length and k < len(w) and w[k] == first[k]:
            k += 1
        length = k
        if length == 0:
            break
    return first[:length]
