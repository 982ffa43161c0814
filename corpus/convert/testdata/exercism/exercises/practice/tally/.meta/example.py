ONES = 1
TWOS = 2


class Board:
    pass


def score(dice, category):
    return category * dice.count(category)
