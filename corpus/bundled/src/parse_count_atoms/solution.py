def count_atoms(formula):
    stack = [{}]
    i = 0
    n = len(formula)

    def read_number():
        nonlocal i
        start = i
        while i < n and formula[i].isdigit():
            i += 1
        return int(formula[start:i]) if i > start else 1

    while i < n:
        ch = formula[i]
        if ch == "(":
            stack.append({})
            i += 1
        elif ch == ")":
            i += 1
            mult = read_number()
            group = stack.pop()
            for name, cnt in group.items():
                stack[-1][name] = stack[-1].get(name, 0) + cnt * mult
        else:
            start = i
            i += 1
            while i < n and formula[i].islower():
                i += 1
            name = formula[start:i]
            cnt = read_number()
            stack[-1][name] = stack[-1].get(name, 0) + cnt
    return stack[0]
