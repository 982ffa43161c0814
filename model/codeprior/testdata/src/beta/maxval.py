# This file shares three normalised lines with the test reference
# (running_max): the builder must drop it.
def largest(seq):
    top = seq[0]
    for item in seq:
        if item > top:
            top = item
    return top
