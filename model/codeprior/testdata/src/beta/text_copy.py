import re


def words(text):
    # Split on anything that is not a letter.
    return [w.lower() for w in re.split(r"[^A-Za-z]+", text) if w]


def count_words(text):
    counts = {}
    for w in words(text):
        counts[w] = counts.get(w, 0) + 1
    return counts


def most_common(text, n=3):
    counts = count_words(text)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:n]
