def run_ledger(balances, ops):
    bal = list(balances)
    n = len(bal)
    rejected = 0
    for op in ops:
        kind = op[0]
        amount = op[-1]
        accounts = op[1:-1]
        valid = amount > 0
        for a in accounts:
            if a < 0 or a >= n:
                valid = False
        if valid and kind == "deposit":
            bal[accounts[0]] += amount
        elif valid and kind == "withdraw" and bal[accounts[0]] >= amount:
            bal[accounts[0]] -= amount
        elif valid and kind == "transfer" and bal[accounts[0]] >= amount:
            bal[accounts[0]] -= amount
            bal[accounts[1]] += amount
        else:
            rejected += 1
    return bal, rejected
