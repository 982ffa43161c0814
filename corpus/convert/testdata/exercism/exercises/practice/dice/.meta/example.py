import random


def roll():
    return random.randint(1, 6)
