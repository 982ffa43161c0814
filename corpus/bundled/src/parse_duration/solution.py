def parse_duration(s):
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    order = "dhms"
    if s == "":
        return -1
    total = 0
    last = -1
    i = 0
    while i < len(s):
        start = i
        while i < len(s) and s[i].isdigit():
            i += 1
        if i == start or i == len(s):
            return -1
        unit = s[i]
        if unit not in units:
            return -1
        rank = order.index(unit)
        if rank <= last:
            return -1
        last = rank
        total += int(s[start:i]) * units[unit]
        i += 1
    return total
