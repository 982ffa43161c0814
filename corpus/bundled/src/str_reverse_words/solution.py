def reverse_words(s):
    words = []
    i = 0
    n = len(s)
    while i < n:
        while i < n and s[i] == " ":
            i += 1
        if i >= n:
            break
        j = i
        while j < n and s[j] != " ":
            j += 1
        words.append(s[i:j])
        i = j
    out = []
    for k in range(len(words) - 1, -1, -1):
        out.append(words[k])
    return " ".join(out)
