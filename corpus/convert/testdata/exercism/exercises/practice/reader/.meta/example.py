def first_line(name):
    with open(name) as f:
        return f.readline().rstrip("\n")
