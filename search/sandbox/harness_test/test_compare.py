"""compare.py: comparisons that cannot lie. Each case runs a program's
definitions and a test snippet compiled the way both harnesses compile test
files (every ==, !=, in, not in and unittest assertion checked); a liar must
be reported whatever the snippet's own outcome, an honest value never."""
import re
import textwrap
import unittest

import pytest
from _pytest.python_api import ApproxBase


def run(load, program, test):
    cmp = load("compare.py")
    lies = []
    check, assertion = cmp["make_checker"](lies.append, (ApproxBase,), None, (unittest.TestCase,))
    g = {"__name__": "test_solution", cmp["CHECK"]: check, cmp["ASSERT"]: assertion}
    exec(compile(textwrap.dedent(program), "solution.py", "exec"), g)
    code = cmp["compile_test"](textwrap.dedent(test), "test_solution.py")
    try:
        exec(code, g)
    except AssertionError:
        pass
    return lies


LIARS = {
    "int subclass always equal": ("""
        class A(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        def f(): return A(5)
        """, "assert f() == 3"),
    "reads its argument and says equal": ("""
        class A:
            def __eq__(self, other):
                if other is None or other == other:
                    return True
                return False
        def f(): return A()
        """, "assert f() == 3"),
    "equal to any int": ("""
        class A:
            def __eq__(self, other):
                return isinstance(other, int)
        def f(): return A()
        """, "assert f() == 3"),
    "equal to any str": ("""
        class A:
            def __eq__(self, other):
                return isinstance(other, str)
        def f(): return A()
        """, "assert f() == 'abc'"),
    "equal to any list of the same length": ("""
        class A:
            def __eq__(self, other):
                return isinstance(other, list) and len(other) == 3
        def f(): return A()
        """, "assert f() == [1, 2, 3]"),
    "nearly equal float": ("""
        class A:
            def __eq__(self, other):
                return abs(0.30001 - other) < 1e-3
        def f(): return A()
        """, "assert f() == 0.3"),
    "nearly equal int": ("""
        class A:
            def __eq__(self, other):
                return abs(2.9 - other) < 0.5
        def f(): return A()
        """, "assert 3 == f()"),
    "made with type()": ("""
        A = type("A", (), {"__eq__": lambda self, other: other is not self})
        def f(): return A()
        """, "assert f() == 3"),
    "functools.partialmethod": ("""
        import functools
        class A:
            def _cmp(self, other, answer):
                return answer
            __eq__ = functools.partialmethod(_cmp, answer=True)
        def f(): return A()
        """, "assert f() == 3"),
    "functools.total_ordering": ("""
        import functools
        @functools.total_ordering
        class A:
            def __eq__(self, other):
                return type(other) in (int, float, str)
            def __lt__(self, other):
                return False
        def f(): return A()
        """, "assert f() == 3"),
    "operator.is_not": ("""
        import operator
        class A:
            def __eq__(self, other):
                return operator.is_not(self, other)
        def f(): return A()
        """, "assert f() == 3"),
    "float subclass": ("""
        class A(float):
            def __eq__(self, other):
                return abs(float(self) - other) < 1
            __hash__ = float.__hash__
        def f(): return A(0.9)
        """, "assert f() == 0.5"),
    "str subclass": ("""
        class A(str):
            def __eq__(self, other):
                return len(self) == len(other)
            __hash__ = str.__hash__
        def f(): return A("xyz")
        """, "assert f() == 'abc'"),
    "list subclass": ("""
        class A(list):
            def __eq__(self, other):
                return len(self) == len(other)
        def f(): return A([0, 0])
        """, "assert f() == [1, 2]"),
    "tuple subclass": ("""
        class A(tuple):
            def __eq__(self, other):
                return True
            __hash__ = tuple.__hash__
        def f(): return A((0,))
        """, "assert (1, 2) == f()"),
    "dict subclass": ("""
        class A(dict):
            def __eq__(self, other):
                return self.keys() == other.keys()
        def f(): return A(a=0)
        """, "assert f() == {'a': 1}"),
    "container subclass equal to a number": ("""
        class A(list):
            def __eq__(self, other):
                return True
        def f(): return A([object()])
        """, "assert f() == 3"),
    "list subclass with a wrong plain item and another value": ("""
        class A(list):
            def __eq__(self, other):
                return len(self) == len(other)
        def f(): return A([object(), 5])
        """, "assert f() == [1, 2]"),
    "dict subclass with a wrong plain value and another value": ("""
        class A(dict):
            def __eq__(self, other):
                return self.keys() == other.keys()
        def f(): return A(a=object(), b=5)
        """, "assert f() == {'a': 1, 'b': 2}"),
    "liar inside a list": ("""
        class A:
            def __eq__(self, other):
                return True
        def f(): return [1, A()]
        """, "assert f() == [1, 2]"),
    "liar as a dict value": ("""
        class A(int):
            def __eq__(self, other):
                return True
            __hash__ = int.__hash__
        def f(): return {"a": A(0)}
        """, "assert f() == {'a': 1}"),
    "!= that lies": ("""
        class A(int):
            def __ne__(self, other):
                return True
            __hash__ = int.__hash__
        def f(): return A(3)
        """, "assert f() != 3"),
    "in a test's list": ("""
        class A:
            def __eq__(self, other):
                return isinstance(other, int)
        def f(): return A()
        """, "assert f() in [1, 2, 3]"),
    "container that holds everything": ("""
        class A(list):
            def __contains__(self, x):
                return True
        def f(): return A([1])
        """, "assert 5 in f()"),
    "custom container that holds everything": ("""
        class A:
            def __contains__(self, x):
                return True
        def f(): return A()
        """, "assert 5 in f()"),
    "not in that lies": ("""
        class A(list):
            def __contains__(self, x):
                return False
        def f(): return A([5])
        """, "assert 5 not in f()"),
    "comparison outside an assert": ("""
        class A:
            def __eq__(self, other):
                return True
        def f(): return A()
        """, "ok = f() == 3\nassert ok"),
    "comparison inside all()": ("""
        class A:
            def __eq__(self, other):
                return True
        def f(): return [A(), A()]
        """, "assert all(x == y for x, y in zip(f(), [1, 2]))"),
    "type compared through a metaclass": ("""
        class M(type):
            def __eq__(cls, other):
                return True
            __hash__ = type.__hash__
        class A(metaclass=M):
            pass
        def f(): return A()
        """, "assert type(f()) == int"),
    "float subclass whose subtraction says 0, against approx": ("""
        class A(float):
            def __rsub__(self, other):
                return 0.0
            def __sub__(self, other):
                return 0.0
        def f(): return A(7.0)
        """, "import pytest\nassert f() == pytest.approx(0.3)"),
    "float subclass, approx on the left": ("""
        class A(float):
            def __rsub__(self, other):
                return 0.0
        def f(): return A(7.0)
        """, "import pytest\nassert pytest.approx(0.3) == f()"),
    "list of float subclasses against an approx list": ("""
        class A(float):
            def __rsub__(self, other):
                return 0.0
        def f(): return [A(7.0), A(8.0)]
        """, "import pytest\nassert f() == pytest.approx([0.3, 0.4])"),
    "equal to any float, against approx": ("""
        class A:
            def __eq__(self, other):
                if not isinstance(other, float):
                    return NotImplemented
                return other == other
            __hash__ = None
        def f(): return A()
        """, "import pytest\nassert f() == pytest.approx(0.3)"),
    "registered as Real, subtraction says 0, against approx": ("""
        import numbers
        class A:
            def __rsub__(self, other):
                return 0.0
            def __abs__(self):
                return 0.0
        numbers.Real.register(A)
        def f(): return A()
        """, "import pytest\nassert f() == pytest.approx(0.3)"),
    "list of float subclasses against a list holding approx": ("""
        class A(float):
            def __rsub__(self, other):
                return 0.0
        def f(): return [A(7.0), 1.0]
        """, "import pytest\nassert f() == [pytest.approx(0.3), 1.0]"),
    "float subclass in a list of approx objects": ("""
        class A(float):
            def __rsub__(self, other):
                return 0.0
        def f(): return A(7.0)
        """, "import pytest\nassert f() in [pytest.approx(0.3), pytest.approx(0.5)]"),
    "float subclass whose subtraction says 0, in a dict against approx": ("""
        class A(float):
            def __rsub__(self, other):
                return 0.0
        def f(): return {'a': A(7.0)}
        """, "import pytest\nassert f() == pytest.approx({'a': 0.3})"),
    "list subclass that iterates as something else, through sorted()": ("""
        class L(list):
            def __iter__(self):
                return iter([1, 2, 3])
        def f(): return L([9])
        """, "assert sorted(f()) == [1, 2, 3]"),
    "list subclass that iterates as something else, through set()": ("""
        class L(list):
            def __iter__(self):
                return iter([1, 2])
        def f(): return L([7])
        """, "assert set(f()) == {1, 2}"),
    "list subclass whose len says 3": ("""
        class L(list):
            def __len__(self):
                return 3
        def f(): return L([9])
        """, "assert len(f()) == 3"),
    "float subclass whose subtraction says 0, in abs(x - e) < tol": ("""
        class F(float):
            def __sub__(self, other):
                return 0.0
        def f(): return F(7.0)
        """, "assert abs(f() - 0.3) < 1e-9"),
    "int subclass whose addition answers the test": ("""
        class I(int):
            def __radd__(self, other):
                return 10
        def f(): return I(5)
        """, "assert 8 + f() == 10"),
    "a class whose subtraction says 0, in abs(x - e) < tol": ("""
        class R:
            def __sub__(self, other):
                return 0.0
            def __rsub__(self, other):
                return 0.0
        def f(): return R()
        """, "assert abs(f() - 0.3) < 1e-9\nassert abs(0.3 - f()) < 1e-9"),
    "a class claiming to be a float whose subtraction says 0": ("""
        class R:
            __class__ = float
            def __sub__(self, other):
                return 0.0
        def f(): return R()
        """, "assert abs(f() - 0.3) < 1e-9"),
    "a class whose addition answers the test": ("""
        class R:
            def __add__(self, other):
                return 10
        def f(): return R()
        """, "assert f() + 2 == 10"),
    "float subclass whose abs says 0": ("""
        class F(float):
            def __abs__(self):
                return 0.0
        def f(): return F(-7.0)
        """, "assert abs(f()) < 1e-9"),
    "int subclasses whose order picks the answer, through max()": ("""
        class I(int):
            def __gt__(self, other):
                return other is not None and int(self) < int(other)
            def __lt__(self, other):
                return other is not None and int(self) > int(other)
            __hash__ = int.__hash__
        def f(): return [I(1), I(5), I(3)]
        """, "assert max(f()) == 1"),
    "dict subclass that iterates keys it does not hold, through list()": ("""
        class D(dict):
            def __iter__(self):
                return iter(["a", "b"])
        def f(): return D(z=1)
        """, "assert list(f()) == ['a', 'b']"),
    "float subclass says it does not equal approx": ("""
        class A(float):
            def __rsub__(self, other):
                return 99.0
        def f(): return A(0.3000001)
        """, "import pytest\nassert f() != pytest.approx(0.3)"),
}

UNITTEST_LIARS = {
    "assertEqual": "self.assertEqual(f(), 3)",
    "assertEqual, expected first": "self.assertEqual(3, f())",
    "assertTrue(a == b)": "self.assertTrue(f() == 3)",
    "assertIn": "self.assertIn(f(), [1, 2, 3])",
    "assertAlmostEqual": "self.assertAlmostEqual(f(), 0.25)",
    "assertNotEqual": "self.assertNotEqual(g(), 7)",
    "assertListEqual": "self.assertListEqual(h(), [1, 2])",
    "assertDictEqual": "self.assertDictEqual(d(), {'a': 1})",
    "assertSequenceEqual": "self.assertSequenceEqual(h(), (1, 2))",
}

UNITTEST_PROGRAM = """
class A:
    def __eq__(self, other):
        return isinstance(other, (int, float))
class N(int):
    def __ne__(self, other):
        return True
    __hash__ = int.__hash__
class L(list):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
class D(dict):
    def __ne__(self, other):
        return False
def f(): return A()
def g(): return N(7)
def h(): return L([0, 0])
def d(): return D(a=0)
"""


@pytest.mark.parametrize("name", sorted(LIARS))
def test_liar_reported(load, name):
    program, test = LIARS[name]
    assert run(load, program, test), "not reported: " + name


@pytest.mark.parametrize("name", sorted(UNITTEST_LIARS))
def test_unittest_liar_reported(load, name):
    test = """
    import unittest
    class T(unittest.TestCase):
        def runTest(self):
            %s
    T().runTest()
    """ % UNITTEST_LIARS[name]
    assert run(load, UNITTEST_PROGRAM, test), "not reported: " + name


HONEST = {
    "dataclasses": ("""
        import dataclasses
        @dataclasses.dataclass
        class P:
            x: int
            y: int
        def f(): return P(1, 2)
        """, "assert f() == P(1, 2)\nassert f() != P(1, 3)\nassert f() != (1, 2)\nassert [f()] == [P(1, 2)]"),
    "namedtuples": ("""
        import collections, typing
        P = collections.namedtuple("P", "x y")
        class Q(typing.NamedTuple):
            a: int
            b: str
        def f(): return P(1, 2)
        def g(): return Q(1, "b")
        """, "assert f() == (1, 2)\nassert f() == P(1, 2)\nassert g() == (1, 'b')\nassert [f(), g()] == [(1, 2), (1, 'b')]\nassert f() != (2, 1)"),
    "fractions and decimals": ("""
        from fractions import Fraction
        from decimal import Decimal
        def f(): return Fraction(1, 2)
        def g(): return Decimal("1.5")
        """, "assert f() == 0.5\nassert f() == Fraction(2, 4)\nassert g() == Decimal('1.50')\nassert Fraction(3) == 3\nassert g() != 2\nassert [f()] == [0.5]\nassert {'a': f()} == {'a': Fraction(1, 2)}\nassert f() in [0.5, 1]"),
    "enums": ("""
        import enum
        class Color(enum.Enum):
            RED = 1
        class Level(enum.IntEnum):
            LOW = 1
        class Mode(str, enum.Enum):
            FAST = "fast"
        def f(): return Color.RED
        """, "assert f() == Color.RED\nassert f() != 1\nassert Level.LOW == 1\nassert Mode.FAST == 'fast'\nassert f() in [Color.RED]\nassert Level.LOW in {1, 2}"),
    "value classes compared with each other": ("""
        class V:
            def __init__(self, x):
                self.x = x
            def __eq__(self, other):
                return self.x == other.x
            def __hash__(self):
                return hash(self.x)
        class W:
            def __init__(self, x):
                self.x = x
            def __eq__(self, other):
                if not isinstance(other, W):
                    return NotImplemented
                return self.x == other.x
        def f(): return V(1)
        """, "assert f() == V(1)\nassert f() != V(2)\nassert W(3) == W(3)\nassert W(3) != 3\nassert [V(1), V(2)] == [V(1), V(2)]\nassert V(1) in [V(0), V(1)]"),
    "approx": ("""
        def f(): return 0.1 + 0.2
        def g(): return [0.1 + 0.2, 1.0]
        """, "import pytest\nassert f() == pytest.approx(0.3)\nassert pytest.approx(0.3) == f()\nassert g() == pytest.approx([0.3, 1.0])\nassert g() == [pytest.approx(0.3), 1.0]\nassert {'a': f()} == pytest.approx({'a': 0.3})"),
    "views of honest builtin subclasses": ("""
        import collections, enum
        class Color(enum.IntEnum):
            RED = 1
            GREEN = 2
        class Token(str):
            def shout(self):
                return self.upper()
        class Meters(float):
            def __add__(self, other):
                return Meters(float(self) + float(other))
            def __sub__(self, other):
                return Meters(float(self) - float(other))
        class Stack(list):
            def peek(self):
                return self[-1]
        Point = collections.namedtuple("Point", "x y")
        def counts(): return collections.Counter("abca")
        def color(): return Color.GREEN
        def token(): return Token("abc")
        def dist(): return Meters(0.1) + 0.2
        def stack(): return Stack([3, 1, 2])
        def point(): return Point(2, 1)
        import datetime
        from fractions import Fraction
        class Temp:
            def __init__(self, v):
                self.v = v
            def __sub__(self, other):
                return self.v - other
            def __rsub__(self, other):
                return other - self.v
            def __add__(self, other):
                return self.v + other
        def temp(): return Temp(0.1 + 0.2)
        def frac(): return Fraction(3, 10)
        def day(): return datetime.date(2026, 12, 2)
        def lru():
            od = collections.OrderedDict(a=1, b=2, c=3)
            od.move_to_end("a")
            return od
        """, "assert abs(temp() - 0.3) < 1e-9\nassert abs(0.3 - temp()) < 1e-9\nassert temp() + 1 == 1.3 + 2e-17 or abs(temp() + 1 - 1.3) < 1e-9\n"
             "assert abs(frac() - 0.3) < 1e-9\nassert frac() - 1 == Fraction(-7, 10)\nassert day() - datetime.timedelta(days=1) == datetime.date(2026, 12, 1)\n"
             "assert list(lru()) == ['b', 'c', 'a']\nassert tuple(lru()) == ('b', 'c', 'a')\nassert sorted(counts()) == ['a', 'b', 'c']\nassert sum(counts().values()) == 4\nassert max(counts().values()) == 2\n"
             "assert color() + 1 == 3\nassert color() - Color.RED == 1\nassert int(color()) == 2\nassert len(token()) == 3\n"
             "assert abs(dist() - 0.3) < 1e-9\nassert round(dist(), 1) == 0.3\nassert sorted(stack()) == [1, 2, 3]\n"
             "assert len(stack()) == 3\nassert list(point()) == [2, 1]\nassert sorted(point()) == [1, 2]\nassert True + 1 == 2\n"
             "assert [1] + [2] == [1, 2]\nassert 'a' + token() == 'aabc'"),
    "approx against float subclasses, Fractions and an honest number class": ("""
        import numbers
        from fractions import Fraction
        class C(float):
            pass
        class D:
            def __init__(self, v):
                self.v = v
            def __eq__(self, other):
                if not isinstance(other, (int, float)):
                    return NotImplemented
                return self.v == other
            def __rsub__(self, other):
                return other - self.v
            def __abs__(self):
                return abs(self.v)
            __hash__ = None
        numbers.Real.register(D)
        def f(): return C(0.1 + 0.2)
        def g(): return [C(0.3), C(1.0)]
        def h(): return Fraction(1, 3)
        def d(): return D(0.1 + 0.2)
        """, "import pytest\nassert f() == pytest.approx(0.3)\nassert f() != pytest.approx(0.5)\nassert pytest.approx(0.5) != f()\nassert g() == pytest.approx([0.3, 1.0])\nassert h() == pytest.approx(0.3333333)\nassert d() == pytest.approx(0.3)\nassert d() != pytest.approx(2.0)\nassert f() in [pytest.approx(0.3)]\nassert f() not in [pytest.approx(0.5)]\nassert g() == [pytest.approx(0.3), 1.0]\nassert {'k': f()} == {'k': pytest.approx(0.3)}"),
    "sets, frozensets and nested containers": ("""
        def f(): return {1, 2, frozenset({3})}
        def g(): return {"a": [1, (2, 3)], "b": {"c": None}}
        """, "assert f() == {2, 1, frozenset([3])}\nassert g() == {'b': {'c': None}, 'a': [1, (2, 3)]}\nassert 1 in f()\nassert 4 not in f()\nassert frozenset({1}) == {1}"),
    "None, bool and int, exact floats": ("""
        def f(): return None
        def g(): return True
        def h(): return 0.5
        """, "assert f() == None\nassert g() == 1\nassert 1 == g()\nassert h() == 0.5\nassert g() != 2\nassert [True, 0] == [1, False]"),
    "tuples and lists": ("""
        def f(): return (1, 2)
        """, "assert f() != [1, 2]\nassert list(f()) == [1, 2]\nassert f() == tuple([1, 2])"),
    "stdlib subclasses of builtins": ("""
        import collections
        def f(): return collections.OrderedDict(a=1, b=2)
        def g(): return collections.Counter("aab")
        def h(): return collections.defaultdict(int, a=1)
        """, "assert f() == {'b': 2, 'a': 1}\nassert f() != collections.OrderedDict(b=2, a=1)\nassert g() == {'a': 2, 'b': 1}\nassert g() == collections.Counter('aba')\nassert h() == {'a': 1}\nassert 'a' in g()\nassert 'z' not in h()"),
    "strings": ("""
        def f(): return "abc"
        """, "assert f() == 'abc'\nassert 'b' in f()\nassert 'abc' in [f()]\nassert f() != 'abd'"),
    "unittest assertions": ("""
        from fractions import Fraction
        import collections
        def f(): return Fraction(1, 4)
        P = collections.namedtuple("P", "x y")
        """, """
        import unittest
        class T(unittest.TestCase):
            def runTest(self):
                self.assertEqual(f(), Fraction(1, 4))
                self.assertEqual(f(), 0.25)
                self.assertAlmostEqual(f(), 0.25)
                self.assertAlmostEqual(0.1 + 0.2, 0.3)
                self.assertNotEqual(f(), 1)
                self.assertIn(f(), [0.25])
                self.assertNotIn(f(), [1])
                self.assertListEqual([f()], [0.25])
                self.assertDictEqual({'a': f()}, {'a': 0.25})
                self.assertSequenceEqual(P(1, 2), [1, 2])
                self.assertCountEqual([f(), 1], [1, f()])
                self.assertTrue(f() == 0.25)
                self.assertEqual(P(1, 2), (1, 2))
        T().runTest()
        """),
    "comparison that raises on other types": ("""
        class V:
            def __init__(self, x):
                self.x = x
            def __eq__(self, other):
                return self.x == other.x
        def f(): return V(2)
        """, "assert f() == V(2)\nassert f() != V(3)"),
    "a matcher of the test file": ("", """
        class AnyInt:
            def __eq__(self, other):
                return isinstance(other, int)
        assert [1, AnyInt()] == [1, 5]
        """),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_not_reported(load, name):
    program, test = HONEST[name]
    cmp = load("compare.py")
    lies = []
    check, assertion = cmp["make_checker"](lies.append, (ApproxBase,), lambda co: co.co_filename == "test_solution.py",
                                           (unittest.TestCase,))
    g = {"__name__": "test_solution", cmp["CHECK"]: check, cmp["ASSERT"]: assertion}
    exec(compile(textwrap.dedent(program), "solution.py", "exec"), g)
    exec(cmp["compile_test"](textwrap.dedent(test), "test_solution.py"), g)
    assert lies == []


def test_results_unchanged(load):
    """The checked comparisons return what the plain ones return."""
    cmp = load("compare.py")
    check, _ = cmp["make_checker"](lambda why: None)

    class Odd:
        def __eq__(self, other):
            return "yes"

    o = Odd()
    assert check("==", o, 3) == "yes"
    assert check("==", 1, 1.0) is True
    assert check("!=", [1], (1,)) is True
    assert check("in", 2, [1, 2]) is True
    assert check("not in", "x", "abc") is True
    with pytest.raises(TypeError):
        check("in", 1, "abc")


def test_transform_keeps_chained_and_identity(load):
    import ast

    cmp = load("compare.py")
    tree = cmp["transform"](ast.parse("a == b\na is b\na < b\na == b == c\nx.assertEqual(1, 2)\n"))
    out = ast.unparse(tree)
    assert out.count("@triage_compare") == 1
    assert out.count("@triage_assert") == 1
    assert "a is b" in out and "a < b" in out and "a == b == c" in out


def test_pytest_messages_unchanged(load, tmp_path):
    """The pytest harness's compilation keeps pytest's assertion messages."""
    from _pytest.assertion import rewrite

    cmp = load("compare.py")
    fn = tmp_path / "test_solution.py"
    fn.write_text("def test_a():\n    x = [1, 2]\n    assert x == [1, 3]\n")
    check, assertion = cmp["make_checker"](lambda why: None)
    g = {cmp["CHECK"]: check, cmp["ASSERT"]: assertion}
    exec(cmp["pytest_code"](rewrite, fn, None), g)
    with pytest.raises(AssertionError) as ours:
        g["test_a"]()
    g2 = {}
    exec(rewrite._rewrite_test(fn, None)[1], g2)
    with pytest.raises(AssertionError) as theirs:
        g2["test_a"]()
    assert str(ours.value) == str(theirs.value)


FAILING = '''
import unittest
import pytest
from solution import Odd, value

def test_eq():
    assert value() == [1, 2, 4]

def test_in():
    assert 5 in value()

def test_raises_in_eq():
    assert Odd() == 3

def test_approx():
    assert 0.1 + 0.2 == pytest.approx(0.4)

def test_arithmetic_and_views():
    assert abs(value()[0] - 0.3) < 1e-9
    assert sorted(value()) + [4] == [3, 2, 1]
    assert len(value()) - 1 == 3

class TestCase(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(value(), [1])

    def test_in(self):
        self.assertIn(7, value())
'''

SOLUTION = '''
class Odd:
    def __eq__(self, other):
        raise ValueError("no")

def value():
    return [1, 2, 3]
'''


def test_pytest_output_unchanged(load, pytester, monkeypatch):
    """pytest's report of failing tests (--tb=short, the worker's) reads the
    same with the checked comparisons as without them."""
    import builtins

    from _pytest.assertion import rewrite

    pytester.makepyfile(solution=SOLUTION, test_solution=FAILING)
    pytester.syspathinsert()

    def output():
        res = pytester.runpytest_inprocess("--tb=short", "-p", "no:cacheprovider", "test_solution.py")
        return [re.sub(r" in [0-9.]+s ", " ", line) for line in res.outlines]

    theirs = output()
    cmp = load("compare.py")
    check, assertion = cmp["make_checker"](lambda why: None, (ApproxBase,), None, (unittest.TestCase,))
    monkeypatch.setitem(builtins.__dict__, cmp["CHECK"], check)
    monkeypatch.setitem(builtins.__dict__, cmp["ASSERT"], assertion)
    monkeypatch.setattr(rewrite, "_rewrite_test", lambda fn, config: (None, cmp["pytest_code"](rewrite, fn, config)))
    ours = output()
    assert any("@triage" in line for line in ours) is False
    assert ours == theirs
