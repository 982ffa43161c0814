def parse_ini(text):
    result = {}
    section = ""
    for raw in text.split("\n"):
        line = raw.strip()
        if line == "" or line[0] == "#" or line[0] == ";":
            continue
        if line[0] == "[" and line[-1] == "]":
            section = line[1:-1].strip()
            continue
        eq = line.find("=")
        if eq < 0:
            continue
        key = line[:eq].strip()
        value = line[eq + 1:].strip()
        if section:
            key = section + "." + key
        result[key] = value
    return result
