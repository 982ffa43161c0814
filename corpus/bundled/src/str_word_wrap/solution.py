def word_wrap(text, width):
    words = text.split()
    lines = []
    current = ""
    for w in words:
        if current == "":
            current = w
        elif len(current) + 1 + len(w) <= width:
            current = current + " " + w
        else:
            lines.append(current)
            current = w
    if current != "":
        lines.append(current)
    return lines
