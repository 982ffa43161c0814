HEX = "0123456789abcdefABCDEF"


def decode(text):
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "+":
            out.append(" ")
        elif ch == "%" and i + 2 < len(text) and text[i + 1] in HEX and text[i + 2] in HEX:
            out.append(chr(int(text[i + 1:i + 3], 16)))
            i += 2
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def parse_query(qs):
    result = {}
    for pair in qs.split("&"):
        if pair == "":
            continue
        eq = pair.find("=")
        if eq == -1:
            name = decode(pair)
            value = ""
        else:
            name = decode(pair[:eq])
            value = decode(pair[eq + 1:])
        if name not in result:
            result[name] = []
        result[name].append(value)
    return result
