# triage sandbox compare: comparisons that cannot lie (see README.md,
# "Comparisons").
#
# Loaded by worker.py into a private namespace, like guard.py and recheck.py.
# A test asks the program's objects whether they are equal to what it
# expects; an object whose __eq__ says "equal" to anything passes every
# `assert result == expected`. So both harnesses compile the test file with
# every ==, !=, in and not in (single comparisons, wherever they are in the
# file) turned into a call of CHECK(op, left, right), and every call of a
# unittest assertion method (assertEqual, assertIn, assertAlmostEqual, ...)
# into ASSERT(bound method, name, *args, **kwargs). Both return exactly what
# the original expression returns (verdicts do not change); on the side they
# judge the answer:
#
#   - a value whose type is exactly a builtin (int, float, complex, bool, str,
#     bytes, None, and list, tuple, dict, set, frozenset of such values) is
#     plain: plain against plain is the interpreter's own comparison and is
#     not looked at again;
#   - a value built from subclasses of the builtins (an int subclass, a list
#     subclass of int subclasses, a namedtuple, an IntEnum, ...) is reduced to
#     the builtin values it holds (read through the builtin types' own
#     methods, so no method of the subclass runs) and compared as the builtin
#     would: an answer that differs is a lie;
#   - any other value that is compared with a plain value (a class of the
#     program, one made with type(), a Fraction) is asked, in random order
#     with the real comparison, whether it equals a fresh object of a private
#     class and copies of the expected value changed a little (the next
#     float, the next int, the last character, one element, one more
#     element): no honest value equals both 3 and 4, or both 0.3 and the next
#     float. Saying yes to any of them while saying yes to the real one is a
#     lie. Containers of such values are taken apart element by element.
#
#   - a value compared with one of the test's pytest.approx objects is
#     judged through approx: approx subtracts the value from the expected
#     one, so a builtin-derived value is given to approx as the builtin it
#     is, and any other value that approx admits must not be admitted by an
#     approx of a value far away too;
#   - sorted(x), len(x), set(x), sum(x), abs(x), ... (VIEWS) and x + y, x - y
#     in the test file: when x is built from subclasses of the builtins, the
#     answer must be the builtin value's (a list subclass that iterates as
#     the expected list, a float subclass whose subtraction says 0).
#
# A lie is reported (report(why)), never raised: the caller records the run
# as tamper. Values the test itself made to compare loosely are trusted:
# pytest.approx's objects and instances of classes whose comparison is
# compiled from the test file.

# pytest leaves this file's frames out of the tracebacks it reports, so a
# failing comparison reads as it did without the checks.
__tracebackhide__ = True

CHECK = "@triage_compare"
ASSERT = "@triage_assert"

# unittest assertion methods and how each compares its two arguments.
ASSERTIONS = {
    "assertEqual": "==", "assertEquals": "==", "failUnlessEqual": "==",
    "assertListEqual": "==", "assertTupleEqual": "==", "assertDictEqual": "==", "assertSetEqual": "==",
    "assertMultiLineEqual": "==", "assertSequenceEqual": "seq", "assertCountEqual": "count",
    "assertNotEqual": "!=", "assertNotEquals": "!=", "failIfEqual": "!=",
    "assertIn": "in", "assertNotIn": "not in",
    "assertAlmostEqual": "almost", "assertAlmostEquals": "almost", "failUnlessAlmostEqual": "almost",
}
# The names of the two compared arguments, by assertion (unittest's own).
ARGUMENT_NAMES = {
    "assertListEqual": ("list1", "list2"), "assertTupleEqual": ("tuple1", "tuple2"), "assertDictEqual": ("d1", "d2"),
    "assertSetEqual": ("set1", "set2"), "assertSequenceEqual": ("seq1", "seq2"), "assertIn": ("member", "container"),
    "assertNotIn": ("member", "container"),
}

# Builtins a test applies to a program's value to look at it (sorted(x) ==
# [...], len(x) == 3, abs(x - e) < tol): a subclass of a builtin answers
# them through its own __iter__, __len__, __abs__, ..., so a call of one of
# them with one argument is checked too, as is + and -.
VIEWS = frozenset(("sorted", "list", "tuple", "set", "frozenset", "len", "sum", "min", "max", "abs", "int",
                   "float", "round"))

# Elements looked at per comparison; a bigger value is not checked.
BUDGET = 100000
MAX_REPORTS = 8


def transform(tree):
    """Rewrite tree (a parsed test module, before or after pytest's assertion
    rewriting) in place: single ==, !=, in, not in comparisons, + and -, and
    one-argument calls of the builtins in VIEWS become CHECK calls, and calls
    of unittest assertion methods become ASSERT calls."""
    import ast

    ops = {ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in"}
    arith = {ast.Add: "+", ast.Sub: "-"}

    class Rewriter(ast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if len(node.ops) != 1 or type(node.ops[0]) not in ops:
                return node
            call = ast.Call(ast.Name(CHECK, ast.Load()), [ast.Constant(ops[type(node.ops[0])]), node.left, node.comparators[0]], [])
            return ast.copy_location(call, node)

        def visit_Call(self, node):
            self.generic_visit(node)
            f = node.func
            if (isinstance(f, ast.Name) and f.id in VIEWS and len(node.args) == 1 and not node.keywords
                    and not isinstance(node.args[0], ast.Starred)):
                call = ast.Call(ast.Name(CHECK, ast.Load()), [ast.Constant("call"), f, node.args[0]], [])
                return ast.copy_location(call, node)
            if not isinstance(f, ast.Attribute) or f.attr not in ASSERTIONS:
                return node
            call = ast.Call(ast.Name(ASSERT, ast.Load()), [f, ast.Constant(f.attr)] + node.args, node.keywords)
            return ast.copy_location(call, node)

        def visit_BinOp(self, node):
            self.generic_visit(node)
            op = arith.get(type(node.op))
            if op is None:
                return node
            call = ast.Call(ast.Name(CHECK, ast.Load()), [ast.Constant(op), node.left, node.right], [])
            return ast.copy_location(call, node)

    Rewriter().visit(tree)
    # pytest's rewriting gives the nodes it adds a line but no end line;
    # fix_missing_locations would take the end from the module (line 1) and
    # make a range that compile refuses (a file whose first statement is not
    # on line 1). A node's own line is its end.
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) is not None and getattr(node, "end_lineno", None) is None \
                and "end_lineno" in node._attributes:
            node.end_lineno = node.lineno
            if getattr(node, "end_col_offset", None) is None:
                node.end_col_offset = getattr(node, "col_offset", 0) or 0
    ast.fix_missing_locations(tree)
    return tree


def compile_test(source, filename):
    """The test file's code with checked comparisons (the re-check's
    compilation)."""
    import ast

    tree = ast.parse(source, filename)
    return compile(transform(tree), filename, "exec", dont_inherit=True)


def pytest_code(rewrite, fn, config):
    """pytest's assertion-rewritten code of the test file fn, with checked
    comparisons (the pytest harness's compilation; rewrite is
    _pytest.assertion.rewrite). The comparisons pytest's rewriting leaves in
    place are checked; its messages do not change."""
    import ast

    source = fn.read_bytes()
    strfn = str(fn)
    tree = ast.parse(source, filename=strfn)
    rewrite.rewrite_asserts(tree, source, strfn, config)
    return compile(transform(tree), strfn, "exec", dont_inherit=True)


# Bound when the file is loaded, before any run: a program that replaces
# os.urandom or math.nextafter in the shared modules does not reach these.
from math import copysign as _copysign, inf as _inf, isinf as _isinf, nextafter as _nextafter  # noqa: E402
from os import urandom as _urandom  # noqa: E402

_GENUINE = {name: __builtins__[name] if isinstance(__builtins__, dict) else getattr(__builtins__, name)
            for name in VIEWS}
_GENUINE_NAMES = {id(f): name for name, f in _GENUINE.items()}
NUMBERS = (int, float, complex)

SCALARS = frozenset((int, bool, float, complex, str, bytes, type(None)))
CONTAINERS = frozenset((list, tuple, dict, set, frozenset))
SCALARS_AND_CONTAINERS = SCALARS | CONTAINERS
BUILTIN_CONTAINERS = (list, tuple, dict, set, frozenset)
_type_name = type.__dict__["__name__"].__get__
_type_mro = type.__dict__["__mro__"].__get__


class TooBig(Exception):
    """A value with more than BUDGET elements: not looked at."""


class _NotReducible(Exception):
    pass


NOT = object()  # reduced()'s answer for a value that is not builtin-derived


# ---------------------------------------------------------- values


def name_of(x):
    """The name of x's type, read past any metaclass."""
    try:
        return _type_name(type(x))
    except Exception:  # noqa: BLE001 - a name is only for the message
        return "?"


def show(v):
    """repr of a plain value, clipped; the type name of any other."""
    try:
        s = repr(v) if is_plain(v) else "a %s" % name_of(v)
    except Exception:  # noqa: BLE001
        s = "?"
    return s if len(s) <= 60 else s[:57] + "..."


def base_items(x):
    """The items of a builtin-derived container, read through the builtin
    type's own iterator (dict: (key, value) pairs)."""
    if isinstance(x, dict):
        return list(dict.items(x))
    for base in (list, tuple, set, frozenset):
        if isinstance(x, base):
            return list(base.__iter__(x))
    raise TypeError("not a builtin container")


def builtin_base(x):
    for base in BUILTIN_CONTAINERS:
        if isinstance(x, base):
            return base
    return None


def plain(x, budget):
    """Whether x and everything in it are exactly builtin values."""
    t = type(x)
    if t in SCALARS:
        return True
    if t not in CONTAINERS:
        return False
    budget[0] -= len(x)
    if budget[0] < 0:
        raise TooBig
    for part in ((dict.keys(x), dict.values(x)) if t is dict else (x,)):
        kinds = set(map(type, part))  # one pass in C for the common flat case
        if kinds <= SCALARS:
            continue
        if not kinds <= SCALARS_AND_CONTAINERS:
            return False
        for v in part:
            if type(v) in CONTAINERS and not plain(v, budget):
                return False
    return True


def is_plain(x):
    """plain(x); None when x is too big or too deep to look at."""
    try:
        return plain(x, [BUDGET])
    except (TooBig, RecursionError):
        return None


def reduce(x, budget):
    """x as exactly builtin values, read through the builtin types' own
    methods (no method of a subclass runs)."""
    t = type(x)
    if t in SCALARS:
        return x
    base = builtin_base(x)
    if base is not None:
        items = base_items(x)
        budget[0] -= len(items)
        if budget[0] < 0:
            raise TooBig
        if base is dict:
            return {reduce(k, budget): reduce(v, budget) for k, v in items}
        return base([reduce(v, budget) for v in items])
    if isinstance(x, int):
        return int.__int__(x)
    if isinstance(x, float):
        return float.__float__(x)
    if isinstance(x, complex):
        return complex.__add__(x, 0j)
    if isinstance(x, str):
        return str.__getitem__(x, slice(None))
    if isinstance(x, bytes):
        return bytes.__getitem__(x, slice(None))
    raise _NotReducible


def reduced(x):
    """reduce(x), or NOT."""
    try:
        return reduce(x, [BUDGET])
    except (_NotReducible, TooBig, RecursionError):
        return NOT


def truth(r):
    try:
        return bool(r)
    except Exception:  # noqa: BLE001 - an answer without a truth value
        return None


def arith(op, a, b):
    """a + b or a - b."""
    return a + b if op == "+" else a - b


def same_number(x, y):
    """x == y for builtin numbers, NaN equal to NaN."""
    if x != x and y != y:
        return True
    return type(x) in NUMBERS and type(y) in NUMBERS and x == y


def claims_equal(x, y):
    try:
        return bool(x == y)
    except Exception:  # noqa: BLE001 - refusing to compare is not a claim
        return False


def claims_in(x, c):
    try:
        return bool(x in c)
    except Exception:  # noqa: BLE001
        return False


def fresh():
    """An object of a class made now: nothing can know it."""
    return type("object", (), {"__slots__": (), "__module__": "builtins"})()


def nudge_number(e):
    t = type(e)
    if t is bool:
        return [not e]
    if t is int:
        out = [e + 1, e - 1]
        try:
            out.append(_nextafter(float(e), _inf))
        except OverflowError:
            pass
        return out
    if t is float:
        if e != e:
            return []
        if _isinf(e):
            return [_copysign(1.7976931348623157e308, e)]
        return [_nextafter(e, _inf), _nextafter(e, -_inf), e + 1.0]
    return [complex(e.real, _nextafter(e.imag, _inf)), e + 1]


def nudge_sequence(e):
    t = type(e)
    if not e:
        return [t([fresh()])]
    out = []
    for i in sorted({0, len(e) // 2, len(e) - 1}):
        alt = nudge(e[i])
        out.append(t(list(e[:i]) + [alt[0] if alt else fresh()] + list(e[i + 1:])))
    out.append(t(list(e) + [e[-1]]))
    out.append(t(list(e)[:-1]))
    return out


def nudge(e):
    """Copies of the plain value e changed a little: no honest value equals
    both e and one of them."""
    t = type(e)
    if t in (bool, int, float, complex):
        return nudge_number(e)
    if t is str or t is bytes:
        if not e:
            return [b"a" if t is bytes else "a"]
        flipped = chr(ord(e[-1]) ^ 1) if t is str else bytes([e[-1] ^ 1])
        return [e[:-1] + flipped, e + e[-1:], e[:-1]]
    if t is list or t is tuple:
        return nudge_sequence(e)
    if t is dict:
        if not e:
            return [{fresh(): 0}]
        k = next(iter(e))
        alt = nudge(e[k])
        changed, fewer, more = dict(e), dict(e), dict(e)
        changed[k] = alt[0] if alt else fresh()
        del fewer[k]
        more[fresh()] = e[k]
        return [changed, fewer, more]
    if t is set or t is frozenset:
        if not e:
            return [t([fresh()])]
        fewer = set(e)
        fewer.pop()
        return [t(fewer), t(set(e) | {fresh()})]
    return []


def far_number(e):
    """A number of e's type that no tolerance near e admits (None: none)."""
    t = type(e)
    if t is bool or t not in (int, float, complex):
        return None
    if t is float and (e != e or _isinf(e)):
        return None
    return e + 1 + 2 * abs(e)


def far_copies(e):
    """Copies of the plain value e with one number moved far away: what an
    approx of e must not admit. Empty when e holds no number."""
    f = far_number(e)
    if f is not None:
        return [f]
    t = type(e)
    if t is list or t is tuple:
        for i, v in enumerate(e):
            f = far_number(v)
            if f is not None:
                return [t(list(e[:i]) + [f] + list(e[i + 1:]))]
    if t is dict:
        for k, v in e.items():
            f = far_number(v)
            if f is not None:
                changed = dict(e)
                changed[k] = f
                return [changed]
    return []


def two_arguments(name, args, kwargs):
    """The two compared arguments of a unittest assertion call, the other
    positional arguments and the other keywords; None if not given."""
    names = ARGUMENT_NAMES.get(name, ("first", "second"))
    vals = list(args[:2])
    kw = dict(kwargs)
    for n in names[len(vals):]:
        if n not in kw:
            return None
        vals.append(kw.pop(n))
    return vals[0], vals[1], list(args[2:]), kw


# ---------------------------------------------------------- the checker


class Checker:
    """The judge of one harness's comparisons (one per worker in the pytest
    harness, one per run in the re-check)."""

    def __init__(self, report, trusted_types, trusted_code, testcases):
        self.report, self.trusted_types, self.trusted_code = report, tuple(trusted_types), trusted_code
        self.testcases = tuple(testcases)
        self.reported = []

    def lie(self, why):
        if why in self.reported or len(self.reported) >= MAX_REPORTS:
            return
        self.reported.append(why)
        self.report(why)

    def trusted(self, x):
        """The test's own loose comparators: approx, classes of the test file."""
        if self.trusted_types and isinstance(x, self.trusted_types):
            return True
        if self.trusted_code is None:
            return False
        for k in _type_mro(type(x)):
            for name in ("__eq__", "__contains__"):
                co = getattr(k.__dict__.get(name), "__code__", None)
                if co is not None and self.trusted_code(co):
                    return True
        return False

    # -------------------------------------------------- ==, !=

    def probe(self, x, e, real):
        """Ask x, in random order with real (the comparison itself, a
        function), whether it equals a fresh object and nudged copies of e:
        (real's result, its truth, the probes x said it equals)."""
        probes = [(True, fresh())] + [(False, p) for p in nudge(e)]
        order = list(range(len(probes) + 1))
        rnd = _urandom(len(order))
        order.sort(key=lambda i: rnd[i])
        said, result, have = [], None, False
        for i in order:
            if i == len(probes):
                result, have = real(), True
            elif claims_equal(x, probes[i][1]):
                said.append(probes[i])
        return result, truth(result) if have else None, said

    def judge_probes(self, x, e, said):
        if not said:
            return
        is_fresh, p = said[0]
        if is_fresh:
            self.lie("a %s says it equals %s and an object it has never seen" % (name_of(x), show(e)))
        else:
            self.lie("a %s says it equals %s and also %s" % (name_of(x), show(e), show(p)))

    def verify_equal(self, x, e, claim):
        """x (not plain) said it equals (claim True) or does not equal e
        (plain): judge it."""
        r = reduced(x)
        if r is not NOT:
            honest = r == e
            if claim != honest:
                self.lie("a %s compared as the builtin it is %s %s, but it says it does%s" % (
                    name_of(x), "equals" if honest else "does not equal", show(e), "" if claim else " not"))
            return
        if not claim or self.trusted(x):
            return
        base = builtin_base(x)
        if base is not None and base is not type(e) and not {base, type(e)} <= {set, frozenset}:
            self.lie("a %s says it equals %s, which a %s never does" % (name_of(x), show(e), base.__name__))
        elif base in (list, tuple):
            self.verify_sequence(x, base, e)
        elif base is dict:
            self.verify_dict(x, e)
        elif base in (set, frozenset):
            for xi in base_items(x):
                if not is_plain(xi) and not self.trusted(xi) and claims_equal(xi, fresh()):
                    self.lie("an element of type %s says it equals an object it has never seen" % name_of(xi))
                    return
        elif base is None:
            _, _, said = self.probe(x, e, lambda: True)
            self.judge_probes(x, e, said)

    def verify_sequence(self, x, base, e):
        items = base_items(x)
        if len(items) != len(e):
            self.lie("a %s says it equals %s, which a %s of its %d items does not" % (
                name_of(x), show(e), base.__name__, len(items)))
            return
        for i, (xi, ei) in enumerate(zip(items, e)):
            if not is_plain(xi):
                self.verify_equal(xi, ei, True)
            elif xi != ei:
                self.lie("a %s says it equals %s, but its item %d is %s" % (name_of(x), show(e), i, show(xi)))
                return

    def verify_dict(self, x, e):
        items = base_items(x)
        if len(items) != len(e):
            self.lie("a %s says it equals %s, which a dict of its %d items does not" % (name_of(x), show(e), len(items)))
            return
        for k, v in items:
            if is_plain(k):
                if k not in e:
                    self.lie("a %s says it equals %s without its key %s" % (name_of(x), show(e), show(k)))
                    return
                if not is_plain(v):
                    self.verify_equal(v, e[k], True)
                elif v != e[k]:
                    self.lie("a %s says it equals %s, but its %s is %s" % (name_of(x), show(e), show(k), show(v)))
                    return
            elif not self.trusted(k) and claims_equal(k, fresh()):
                self.lie("a key of type %s says it equals an object it has never seen" % name_of(k))
                return

    def approx(self, x):
        """Whether x is one of the test's approx objects (trusted_types), or
        a list, tuple or dict that holds one and otherwise plain values (as
        in `assert result == [pytest.approx(0.3), 1]`)."""
        if not self.trusted_types:
            return False
        try:
            return self.approx_shaped(x, [BUDGET]) is True
        except (TooBig, RecursionError):
            return False

    def approx_shaped(self, x, budget):
        """True: x holds an approx object and nothing else that is not
        plain; None: x is plain; False: otherwise."""
        if isinstance(x, self.trusted_types):
            return True
        t = type(x)
        if t in SCALARS:
            return None
        if t not in (list, tuple, dict):
            return False
        budget[0] -= len(x)
        if budget[0] < 0:
            raise TooBig
        found = None
        for v in (dict.values(x) if t is dict else x):
            if type(v) not in SCALARS:
                r = self.approx_shaped(v, budget)
                if r is False:
                    return False
                found = found or r
        if t is dict and not is_plain(list(dict.keys(x))):
            return False
        return found

    def verify_approx(self, x, ap, claim):
        """x (program-made, not plain) said it equals (claim True) or does
        not equal ap, an approx object of the test. approx does its
        arithmetic on x (x - expected, abs), so a subclass of a builtin
        number that answers it differently passes: ask approx about the
        builtin value x is instead. For any other x that says it is equal,
        ask an approx of a value far from the expected one too."""
        r = reduced(x)
        if r is not NOT:
            honest = claims_equal(ap, r)
            if claim != honest:
                self.lie("a %s compared as the builtin it is %s %s, but it says it does%s" % (
                    name_of(x), "equals" if honest else "does not equal", self.show_approx(ap),
                    "" if claim else " not"))
            return
        if not claim or self.trusted(x):
            return
        if not isinstance(ap, self.trusted_types):
            self.sentinel_check(x)
            return
        e = getattr(ap, "expected", NOT)
        if e is NOT or not is_plain(e):
            return
        for far in far_copies(e):
            try:
                other = type(ap)(far, rel=getattr(ap, "rel", None), abs=getattr(ap, "abs", None),
                                 nan_ok=getattr(ap, "nan_ok", False))
            except Exception:  # noqa: BLE001 - an approx this class cannot make again
                return
            if claims_equal(other, x) or claims_equal(x, other):
                self.lie("a %s says it equals approx(%s) and also approx(%s)" % (name_of(x), show(e), show(far)))
                return
        self.sentinel_check(x)

    def show_approx(self, ap):
        e = getattr(ap, "expected", NOT)
        if e is not NOT:
            return "approx(%s)" % show(e)
        return "a %s holding approx objects" % name_of(ap)

    def sentinel_check(self, x):
        if not self.trusted(x) and claims_equal(x, fresh()):
            self.lie("a %s says it equals an object it has never seen" % name_of(x))

    def check_eq(self, op, a, b):
        pa, pb = is_plain(a), is_plain(b)
        if pa is None or pb is None or (pa and pb):
            return a == b if op == "==" else a != b
        if not pa and not pb:
            aa = self.approx(a)
            if aa != self.approx(b):
                x, ap = (b, a) if aa else (a, b)
                result = a == b if op == "==" else a != b
                claim = truth(result)
                if claim is not None:
                    self.verify_approx(x, ap, claim if op == "==" else not claim)
                return result
        if pa or pb:
            x, e = (b, a) if pa else (a, b)
            if op == "==" and reduced(x) is NOT and builtin_base(x) is None and not self.trusted(x):
                result, claim, said = self.probe(x, e, lambda: a == b)
                if claim:
                    self.judge_probes(x, e, said)
                return result
            result = a == b if op == "==" else a != b
            claim = truth(result)
            if claim is not None:
                self.verify_equal(x, e, claim if op == "==" else not claim)
            if op == "!=" and claim and claims_equal(a, b):
                self.lie("a %s says it both equals and does not equal %s" % (name_of(x), show(e)))
            return result
        result = a == b if op == "==" else a != b
        claim = truth(result)
        if op == "==" and claim:
            self.sentinel_check(a)
            self.sentinel_check(b)
        elif op == "!=" and claim and claims_equal(a, b):
            self.lie("a %s says it both equals and does not equal a %s" % (name_of(a), name_of(b)))
        return result

    # -------------------------------------------------- in, not in

    def verify_in(self, x, c, claim):
        """x said it is in c (claim True) or not (False): judge it."""
        px, pc = is_plain(x), is_plain(c)
        if px is None or pc is None or (px and pc):
            return
        if not px and type(c) in (list, tuple) and self.approx(c):
            # approx objects in a list: approx is asked about the builtin
            # value x is, as for ==.
            r = reduced(x)
            if r is not NOT and claims_in(r, c) != claim:
                self.lie("a %s compared as the builtin it is is %sin a list of approx objects, but it says it is%s" % (
                    name_of(x), "not " if claim else "", "" if claim else " not"))
            return
        if pc:
            self.verify_member(x, c, claim)
        else:
            self.verify_container(x, px, c, claim)

    def verify_member(self, x, c, claim):
        """x, not plain, in c, plain."""
        r = reduced(x)
        if r is not NOT:
            try:
                honest = r in c
            except TypeError:
                return
            if honest != claim:
                self.lie("a %s compared as the builtin it is is %sin %s, but it says it is%s" % (
                    name_of(x), "" if honest else "not ", show(c), "" if claim else " not"))
            return
        if not claim or self.trusted(x) or type(c) in (str, bytes):
            return
        matches = [e for e in c if claims_equal(x, e)]
        if not matches:
            self.lie("a %s says it is in %s, but equals none of its elements" % (name_of(x), show(c)))
            return
        self.verify_equal(x, matches[0], True)

    def verify_container(self, x, px, c, claim):
        """x in c, c not plain."""
        r = reduced(c)
        if px and r is not NOT:
            try:
                honest = x in r
            except TypeError:
                return
            if honest != claim:
                self.lie("a %s compared as the builtin it is %s %s, but it says it does%s" % (
                    name_of(c), "holds" if honest else "does not hold", show(x), "" if claim else " not"))
            return
        if not claim or self.trusted(c):
            return
        base = builtin_base(c)
        if base is None:
            if claims_in(fresh(), c):
                self.lie("a %s says it holds an object it has never seen" % name_of(c))
            return
        if px:
            elems = [k for k, _ in base_items(c)] if base is dict else base_items(c)
            matches = [ci for ci in elems if claims_equal(ci, x)]
            if not matches:
                self.lie("a %s says it holds %s, but none of its elements equals it" % (name_of(c), show(x)))
            elif not is_plain(matches[0]):
                self.verify_equal(matches[0], x, True)

    def check(self, op, a, b):
        """CHECK: a op b, judged; returns what a op b returns ("call": a(b))."""
        if op == "+" or op == "-":
            return self.check_arith(op, a, b)
        if op == "call":
            return self.check_view(a, b)
        if op == "==" or op == "!=":
            if type(a) in SCALARS and type(b) in SCALARS:
                return a == b if op == "==" else a != b
            return self.check_eq(op, a, b)
        result = a in b if op == "in" else a not in b
        claim = truth(result)
        if claim is not None:
            try:
                self.verify_in(a, b, claim if op == "in" else not claim)
            except (TooBig, RecursionError):
                pass
        return result

    # -------------------------------------------------- +, -, sorted(x), len(x), ...

    def check_arith(self, op, a, b):
        """a + b or a - b. When a number built on int, float or complex takes
        part, the answer must be the builtin numbers' answer. When any other
        value meets a plain int or float and answers with a plain number, it
        is also asked about two numbers far away, in random order with the
        real one: its answers must move with the number as the number's own
        do (no honest x has x - 0.3 == 0 and x - 1.9 == 0)."""
        ta, tb = type(a), type(b)
        if ta in SCALARS and tb in SCALARS:
            return arith(op, a, b)
        if ta is not bool and tb is not bool and isinstance(a, NUMBERS) and isinstance(b, NUMBERS):
            result = arith(op, a, b)
            try:
                ra, rb, got = reduce(a, [BUDGET]), reduce(b, [BUDGET]), reduce(result, [BUDGET])
                honest = arith(op, ra, rb)
            except Exception:  # noqa: BLE001 - not the builtin it claims to be: probe it below
                return self.probe_arith(op, a, b, result)
            if not same_number(got, honest):
                self.lie("%s %s %s gave %s, but the builtin numbers they are give %s" % (
                    show(ra) if ta not in SCALARS else show(a), op, show(rb) if tb not in SCALARS else show(b),
                    show(got), show(honest)))
            return result
        return self.probe_arith(op, a, b, NOT)

    def probe_arith(self, op, a, b, result):
        """a op b for a value x that is not a builtin number and a plain int or
        float e (result: its answer when already computed, else NOT)."""
        ta, tb = type(a), type(b)
        if ta in (int, float) and tb not in SCALARS:
            x, e, left = b, a, False
        elif tb in (int, float) and ta not in SCALARS:
            x, e, left = a, b, True
        else:
            x = e = None
        if e is None or e != e or _isinf(e):
            return arith(op, a, b) if result is NOT else result

        def do(v):
            return arith(op, x, v) if left else arith(op, v, x)

        fars = [far_number(e), e - 3 - 5 * abs(e)]
        order = [0, 1, 2]
        rnd = _urandom(3)
        order.sort(key=lambda i: rnd[i])
        outs = [NOT, NOT, NOT]
        for i in order:
            if i == 0:
                if result is NOT:
                    result = do(e)
            else:
                try:
                    outs[i] = do(fars[i - 1])
                except Exception:  # noqa: BLE001 - no answer, no claim
                    pass
        if type(result) not in (int, float) or result != result:
            return result
        for far, got in zip(fars, outs[1:]):
            if type(got) not in (int, float):
                continue
            shift = far - e
            want = result + shift if op == "+" or not left else result - shift
            if abs(got - want) > 1e-6 * max(1.0, abs(want), abs(far), abs(e)):
                self.lie("a %s %s %s gives %s, but with %s for %s it gives %s" % (
                    name_of(x), op, show(e), show(result), show(far), show(e), show(got)))
                break
        return result

    def check_view(self, f, x):
        """f(x) for f a builtin of VIEWS: when x is built from subclasses of
        the builtins, f of the builtin value x is must give the same."""
        result = f(x)
        if type(x) in SCALARS or is_plain(x) is not False:
            return result
        name = _GENUINE_NAMES.get(id(f))
        if name is None or _GENUINE[name] is not f:
            return result
        if name in ("list", "tuple") and builtin_base(x) is dict:
            # A dict subclass may keep an order of its own (OrderedDict after
            # move_to_end): its keys, not their order, are held to the dict's.
            self.check_keys(x, result)
            return result
        try:
            r = reduce(x, [BUDGET])
            honest = f(r)
            got = reduce(result, [BUDGET])
        except Exception:  # noqa: BLE001 - no builtin answer to hold it to
            return result
        if type(got) in NUMBERS and type(honest) in NUMBERS:
            same = same_number(got, honest)
        else:
            try:
                same = bool(got == honest)
            except Exception:  # noqa: BLE001
                same = True
        if not same:
            self.lie("%s() of a %s gives %s, but of the builtin value it is %s" % (name, name_of(x), show(got), show(honest)))
        return result

    def check_keys(self, x, got):
        """got: the keys list(x) or tuple(x) gave for a dict subclass x."""
        try:
            got = sorted(reduce(got, [BUDGET]))
            honest = sorted(reduce(x, [BUDGET]))
            same = got == honest
        except Exception:  # noqa: BLE001 - keys that do not order, or no builtin answer
            return
        if not same:
            self.lie("the keys a %s iterates are %s, but the dict it is holds %s" % (name_of(x), show(got), show(honest)))

    # -------------------------------------------------- unittest

    def is_assertion(self, bound, name):
        f = getattr(bound, "__func__", None)
        return f is not None and any(getattr(tc, name, None) is f for tc in self.testcases)

    def verify_assertion(self, bound, name, args, kwargs):
        got = two_arguments(name, args, kwargs)
        if got is None:
            return
        first, second, rest, kw = got
        pa, pb = is_plain(first), is_plain(second)
        if pa is None or pb is None or (pa and pb):
            return
        kind = ASSERTIONS[name]
        ra, rb = reduced(first), reduced(second)
        if ra is not NOT and rb is not NOT:
            # The genuine assertion on the builtin values.
            try:
                bound(ra, rb, *rest, **kw)
            except AssertionError:
                self.lie("%s passed for a %s and a %s, but fails for the builtin values they are" % (
                    name, name_of(first), name_of(second)))
            except Exception:  # noqa: BLE001 - not a verdict on the values
                pass
        elif kind == "==" or kind == "!=":
            if pa or pb:
                x, e = (second, first) if pa else (first, second)
                self.verify_equal(x, e, kind == "==")
            elif (af := self.approx(first)) != self.approx(second):
                x, ap = (second, first) if af else (first, second)
                self.verify_approx(x, ap, kind == "==")
            elif kind == "==":
                self.sentinel_check(first)
                self.sentinel_check(second)
        elif kind == "in" or kind == "not in":
            self.verify_in(first, second, kind == "in")
        elif kind == "seq":
            if builtin_base(first) in (list, tuple) and builtin_base(second) in (list, tuple):
                for x, y in zip(base_items(first), base_items(second)):
                    if is_plain(y) and not is_plain(x):
                        self.verify_equal(x, y, True)
                    elif is_plain(x) and not is_plain(y):
                        self.verify_equal(y, x, True)
        elif kind == "count":
            for side in (first, second):
                if builtin_base(side) in (list, tuple, set, frozenset):
                    for v in base_items(side):
                        if not is_plain(v):
                            self.sentinel_check(v)
        elif kind == "almost":
            self.verify_almost(bound, name, first, second, rest, kw)

    def verify_almost(self, bound, name, first, second, rest, kw):
        """assertAlmostEqual passed: it must not pass against a value far
        away or a fresh object."""
        for x, e in ((first, second), (second, first)):
            if is_plain(x) or self.trusted(x) or type(e) not in (int, float):
                continue
            far = e + 1 + 2 * abs(e) + 3 * abs(kw.get("delta") or 0)
            for p in (far, fresh()):
                try:
                    bound(x, p, *rest, **kw)
                except Exception:  # noqa: BLE001 - rejected, as it should be
                    continue
                self.lie("%s passes for a %s against %s and against %s" % (name, name_of(x), show(e), show(p)))
                return

    def assertion(self, bound, name, *args, **kwargs):
        """ASSERT: bound(*args, **kwargs), judged when bound is a unittest
        assertion that passed."""
        result = bound(*args, **kwargs)
        try:
            if self.is_assertion(bound, name):
                self.verify_assertion(bound, name, args, kwargs)
        except (TooBig, RecursionError):
            pass
        return result


def make_checker(report, trusted_types=(), trusted_code=None, testcases=()):
    """Return (check, assertion), the functions CHECK and ASSERT name.
    report(why) is called for each lie (at most MAX_REPORTS per checker);
    trusted_types: the test's loose comparators (pytest.approx's base
    classes); trusted_code(code) says whether a comparison method is the test
    file's; testcases: the unittest TestCase classes whose assertions are
    checked."""
    c = Checker(report, trusted_types, trusted_code, testcases)
    return c.check, c.assertion
