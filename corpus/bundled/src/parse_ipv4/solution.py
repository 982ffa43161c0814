def is_ipv4(s):
    parts = s.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if len(part) == 0 or len(part) > 3:
            return False
        for ch in part:
            if ch < "0" or ch > "9":
                return False
        if part[0] == "0" and len(part) > 1:
            return False
        if int(part) > 255:
            return False
    return True
