def simplify_path(path):
    parts = []
    for name in path.split("/"):
        if name == "" or name == ".":
            continue
        if name == "..":
            if len(parts) > 0:
                parts.pop()
        else:
            parts.append(name)
    return "/" + "/".join(parts)
