"""worker.py's recursion_index: pytest's Traceback.recursionindex, with each
frame's locals compared only with the earlier ones of the same plain_hash.
plain_hash must give values that are == the same hash (else a repeat goes
unseen), and must refuse anything whose == could run a program's code."""
import math
import types

import pytest
from _pytest._code import ExceptionInfo

NAN = float("nan")

# Pairs of plain values that are ==, of different types or shapes.
EQUAL = [
    (1, 1.0),
    (1, True),
    (0, -0.0),
    (2, complex(2, 0)),
    (NAN, NAN),  # the same object: == inside a container (identity first)
    ({1, 2}, frozenset({2, 1})),
    ({"a": 1, "b": [2, 3]}, {"b": [2.0, 3], "a": True}),
    ([1, (2, [3, {4: None}])], [1.0, (2, [3, {4.0: None}])]),
    ({(1, 2): "x"}, {(1.0, 2): "x"}),
    (b"ab", b"ab"),
    ("", ""),
]


@pytest.mark.parametrize("a,b", EQUAL)
def test_equal_values_hash_alike(worker, a, b):
    assert [a] == [b]
    h = worker["plain_hash"]
    assert h(a, {}, [10 ** 6]) == h(b, {}, [10 ** 6])


class Box:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


class Int(int):
    pass


def nested(depth):
    v = []
    for _ in range(depth):
        v = [v]
    return v


class OnlyLess:
    # == stays object's (identity): __lt__ alone does not change it.
    def __lt__(self, other):
        raise AssertionError("called")


@pytest.mark.parametrize("value", [Box(), Int(3), [1, Box()], {"k": (Int(1),)}, {Box(): 1}, nested(40), range(3),
                                   types.SimpleNamespace(), math.sqrt, [[0] * 10 for _ in range(30)],
                                   type("Made", (Box,), {})()])
def test_not_plain(worker, value):
    with pytest.raises(worker["NotPlainData"]):
        worker["plain_hash"](value, {}, [200])


def run_later():
    return None


@pytest.mark.parametrize("value", [OnlyLess(), object(), math, OnlyLess, run_later, [OnlyLess, OnlyLess()]])
def test_identity_compared(worker, value):
    # Objects compared by identity hash alike however often they are met,
    # their class met before or after them, in one memo or in fresh ones.
    h = worker["plain_hash"]
    memo = {}
    first = h(value, memo, [200])
    h(OnlyLess(), memo, [200])
    h(OnlyLess, memo, [200])
    assert h(value, memo, [200]) == first == h(value, {}, [200])


def frames_of(fn, *args):
    """The ExceptionInfo of fn(*args) (a RecursionError, or another
    failure), its traceback starting at fn's frame."""
    try:
        fn(*args)
    except BaseException as e:  # noqa: BLE001
        return ExceptionInfo.from_exc_info((type(e), e, e.__traceback__.tb_next))
    raise AssertionError("no failure")


def frames_of_tb(excinfo):
    """recursion_index's input: ((code's identity, line), locals) of each
    frame."""
    out = []
    t = excinfo.tb
    while t is not None:
        f = t.tb_frame
        out.append(((id(f.f_code), t.tb_lineno), f.f_locals))
        t = t.tb_next
    return out


def same(a, b):
    return same(a, b)


def climb(n):
    return climb(n + 1)


def ping(xs, n):
    return pong(xs, n % 3)


def pong(xs, n):
    return ping(xs, n + 1)


def shared_nan(x):
    return shared_nan(NAN)


def new_nan(x):
    return new_nan(float("nan"))


def settle(n, acc):
    return settle(n // 2, {"n": [n // 2]})


class Walker:
    # A program's object that leaves == alone: compared by identity.
    def walk(self, n):
        return self.walk(n)


def run(fn, *args):
    return fn(*args)


@pytest.mark.parametrize("fn,args", [
    (same, (1, [2])),
    (climb, (0,)),
    (ping, ([1, {2: 3}], 0)),
    (shared_nan, (0,)),
    (new_nan, (0,)),
    (settle, (10 ** 9, None)),
    (run, (climb, 5)),
    (Walker().walk, (1,)),
])
def test_recursion_index_is_pytests(worker, fn, args):
    excinfo = frames_of(run, fn, *args)
    assert isinstance(excinfo.value, RecursionError)
    want = excinfo.traceback.recursionindex()
    assert worker["recursion_index"](frames_of_tb(excinfo)) == want


def test_program_values_go_to_pytest(worker):
    # Locals of the program's own type are never compared here: pytest
    # would run their __eq__ again.
    def boxes(b):
        return boxes(Box())

    excinfo = frames_of(run, boxes, Box())
    with pytest.raises(worker["NotPlainData"]):
        worker["recursion_index"](frames_of_tb(excinfo))
