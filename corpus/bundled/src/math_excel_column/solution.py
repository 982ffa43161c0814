def column_title(n):
    letters = []
    while n > 0:
        n -= 1
        r = n % 26
        letters.append(chr(ord("A") + r))
        n //= 26
    letters.reverse()
    return "".join(letters)
