"""Functions with doctests for the converter's tests (the module's docstring
is not a function's: >>> here is no example)."""

from __future__ import annotations

import math
from typing import Any

SCALE = 2
UNUSED: Any = None


class NegativeError(ValueError):
    """Raised for a negative input."""


def _square(x: int) -> int:
    """
    >>> _square(3)
    9
    """
    return x * x


def scaled_square(x: int) -> int:
    """
    Return SCALE times the square of x.

    Examples:
    >>> scaled_square(3)
    18
    >>> scaled_square(-1)
    Traceback (most recent call last):
        ...
    NegativeError: x must be non-negative
    """
    if x < 0:
        raise NegativeError("x must be non-negative")
    return SCALE * _square(x)


def hypot_list(n: int) -> list[float]:
    """
    The hypotenuses of (1, 1) ... (n, n).

    >>> hypot_list(2)
    [1.4142135623730951,
     2.8284271247461903]
    >>> hypot_list(0)
    []
    >>> hypot_list(-1)
    Traceback (most recent call last):
    ValueError: n must be >= 0
    >>> hypot_list(3)  # doctest: +ELLIPSIS
    [1.41..., ...]
    >>> hypot_list(100)  # doctest: +SKIP
    [1.0]
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    return [math.hypot(i, i) for i in range(1, n + 1)]


def counter():
    """
    Count from zero.

    >>> c = counter()
    >>> next(c)
    0
    >>> next(c)
    1
    >>> print(next(c))
    2
    """
    i = 0
    while True:
        yield i
        i += 1


def test_helper_name():
    """
    >>> test_helper_name()
    True
    """
    return True


if __name__ == "__main__":
    import doctest

    doctest.testmod()
