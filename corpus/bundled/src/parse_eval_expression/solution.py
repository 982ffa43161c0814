def evaluate(expr):
    pos = 0

    def skip():
        nonlocal pos
        while pos < len(expr) and expr[pos] == " ":
            pos += 1

    def factor():
        nonlocal pos
        skip()
        if expr[pos] == "(":
            pos += 1
            value = add_sub()
            skip()
            pos += 1
            return value
        value = 0
        while pos < len(expr) and expr[pos].isdigit():
            value = value * 10 + int(expr[pos])
            pos += 1
        return value

    def mul_div():
        nonlocal pos
        value = factor()
        skip()
        while pos < len(expr) and expr[pos] in "*/":
            op = expr[pos]
            pos += 1
            rhs = factor()
            if op == "*":
                value = value * rhs
            else:
                q = abs(value) // abs(rhs)
                value = q if (value >= 0) == (rhs > 0) else -q
            skip()
        return value

    def add_sub():
        nonlocal pos
        value = mul_div()
        while pos < len(expr) and expr[pos] in "+-":
            op = expr[pos]
            pos += 1
            rhs = mul_div()
            value = value + rhs if op == "+" else value - rhs
        return value

    return add_sub()
