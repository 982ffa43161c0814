def rob(money):
    take = 0
    skip = 0
    for amount in money:
        new_take = skip + amount
        if take > skip:
            skip = take
        take = new_take
    if take > skip:
        return take
    return skip
