def show_pair(a, b):
    """
    Print a and b on one line, then return their sum.

    >>> show_pair(1, 2)
    1 2
    3
    >>> show_pair("x", "y")
    x y
    'xy'
    """
    print(a, b)
    return a + b


def stars(n: int) -> str:
    """
    >>> for i in range(2): stars(i)
    ''
    '*'
    >>> print(stars(3))
    ***
    >>> stars(2) == "**"
    True
    """
    return "*" * n
