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

# Elements looked at per comparison; a bigger value is not checked.
BUDGET = 100000
MAX_REPORTS = 8


def transform(tree):
    """Rewrite tree (a parsed test module, before or after pytest's assertion
    rewriting) in place: single ==, !=, in, not in comparisons become CHECK
    calls and calls of unittest assertion methods become ASSERT calls."""
    import ast

    ops = {ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in"}

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
            if not isinstance(f, ast.Attribute) or f.attr not in ASSERTIONS:
                return node
            call = ast.Call(ast.Name(ASSERT, ast.Load()), [f, ast.Constant(f.attr)] + node.args, node.keywords)
            return ast.copy_location(call, node)

    Rewriter().visit(tree)
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


def make_checker(report, trusted_types=(), trusted_code=None, testcases=()):
    """Return (check, assertion), the functions CHECK and ASSERT name.
    report(why) is called for each lie (at most MAX_REPORTS per checker);
    trusted_types: the test's loose comparators (pytest.approx's base
    classes); trusted_code(code) says whether a comparison method is the test
    file's; testcases: the unittest TestCase classes whose assertions are
    checked."""
    import math
    import os

    b_type = type
    type_name = type.__dict__["__name__"].__get__
    type_mro = type.__dict__["__mro__"].__get__
    SCALARS = frozenset((int, bool, float, complex, str, bytes, type(None)))
    CONTAINERS = frozenset((list, tuple, dict, set, frozenset))
    reported = []

    class NotReducible(Exception):
        pass

    class TooBig(Exception):
        pass

    NOT = NotReducible

    def lie(why):
        if why in reported or len(reported) >= MAX_REPORTS:
            return
        reported.append(why)
        report(why)

    def name_of(x):
        try:
            return type_name(b_type(x))
        except Exception:  # noqa: BLE001 - a name is only for the message
            return "?"

    def show(v):
        """repr of a plain value, clipped."""
        try:
            s = repr(v) if plain(v) else "a %s" % name_of(v)
        except Exception:  # noqa: BLE001
            s = "?"
        return s if len(s) <= 60 else s[:57] + "..."

    def plain(x, budget=None):
        """Whether x and everything in it are exactly builtin values."""
        budget = budget if budget is not None else [BUDGET]
        t = b_type(x)
        if t in SCALARS:
            return True
        if t not in CONTAINERS:
            return False
        budget[0] -= len(x)
        if budget[0] < 0:
            raise TooBig
        if t is dict:
            return all(plain(k, budget) and plain(v, budget) for k, v in dict.items(x))
        return all(plain(v, budget) for v in x)

    def reduce(x, budget=None):
        """x as exactly builtin values, read through the builtin types'
        methods; NotReducible if something in it is not builtin-derived."""
        budget = budget if budget is not None else [BUDGET]
        t = b_type(x)
        if t in SCALARS:
            return x
        if isinstance(x, (list, tuple, dict, set, frozenset)):
            if isinstance(x, dict):
                items = list(dict.items(x))
            elif isinstance(x, list):
                items = list(list.__iter__(x))
            elif isinstance(x, tuple):
                items = list(tuple.__iter__(x))
            elif isinstance(x, set):
                items = list(set.__iter__(x))
            else:
                items = list(frozenset.__iter__(x))
            budget[0] -= len(items)
            if budget[0] < 0:
                raise TooBig
            if isinstance(x, dict):
                return {reduce(k, budget): reduce(v, budget) for k, v in items}
            vals = [reduce(v, budget) for v in items]
            for base in (list, tuple, set, frozenset):
                if isinstance(x, base):
                    return base(vals)
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
        raise NotReducible

    def reduced(x):
        try:
            return reduce(x)
        except (NotReducible, TooBig, RecursionError):
            return NOT

    def is_plain(x):
        try:
            return plain(x)
        except (TooBig, RecursionError):
            return None  # unknown: too big to look at

    def trusted(x):
        if trusted_types and isinstance(x, trusted_types):
            return True
        if trusted_code is None:
            return False
        for k in type_mro(b_type(x)):
            for name in ("__eq__", "__contains__"):
                f = k.__dict__.get(name)
                co = getattr(f, "__code__", None)
                if co is not None and trusted_code(co):
                    return True
        return False

    def truth(r):
        try:
            return bool(r)
        except Exception:  # noqa: BLE001 - an answer without a truth value
            return None

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
        return b_type("object", (), {"__slots__": ()})()

    def nudge_number(e):
        out = []
        if b_type(e) is bool:
            return [not e]
        if b_type(e) is int:
            out = [e + 1, e - 1]
            try:
                out.append(math.nextafter(float(e), math.inf))
            except OverflowError:
                pass
            return out
        if b_type(e) is float:
            if e != e:
                return []
            if math.isinf(e):
                return [math.copysign(1.7976931348623157e308, e)]
            return [math.nextafter(e, math.inf), math.nextafter(e, -math.inf), e + 1.0]
        if b_type(e) is complex:
            return [complex(e.real, math.nextafter(e.imag, math.inf)), e + 1]
        return out

    def nudge(e):
        """Copies of the plain value e changed a little."""
        t = b_type(e)
        if t in (bool, int, float, complex):
            return nudge_number(e)
        if t is str or t is bytes:
            if not e:
                return [t(b"a") if t is bytes else "a"]
            last = e[-1:]
            if t is str:
                flipped = chr(ord(last) ^ 1)
            else:
                flipped = bytes([last[0] ^ 1])
            return [e[:-1] + flipped, e + e[-1:], e[:-1]]
        if t is list or t is tuple:
            if not e:
                return [t([fresh()])]
            out = []
            for i in sorted({0, len(e) // 2, len(e) - 1}):
                alt = nudge(e[i])
                repl = alt[0] if alt else fresh()
                out.append(t(list(e[:i]) + [repl] + list(e[i + 1:])))
            out.append(t(list(e) + [e[-1]]))
            out.append(t(list(e)[:-1]))
            return out
        if t is dict:
            if not e:
                return [{fresh(): 0}]
            k = next(iter(e))
            alt = nudge(e[k])
            changed = dict(e)
            changed[k] = alt[0] if alt else fresh()
            fewer = dict(e)
            del fewer[k]
            more = dict(e)
            more[fresh()] = e[k]
            return [changed, fewer, more]
        if t is set or t is frozenset:
            if not e:
                return [t([fresh()])]
            fewer = set(e)
            fewer.pop()
            return [t(fewer), t(set(e) | {fresh()})]
        return []

    def probe(x, e, real):
        """Ask x, in random order with real (the comparison itself, a
        function), whether it equals a fresh object and nudged copies of e.
        Returns real's result, its truth and the probes x said it equals."""
        probes = [(True, fresh())] + [(False, p) for p in nudge(e)]
        order = list(range(len(probes) + 1))
        rnd = os.urandom(len(order))
        order.sort(key=lambda i: rnd[i])
        said, result, have = [], None, False
        for i in order:
            if i == len(probes):
                result, have = real(), True
            elif claims_equal(x, probes[i][1]):
                said.append(probes[i])
        return result, truth(result) if have else None, said

    def judge_probes(x, e, said):
        if not said:
            return
        is_fresh, p = said[0]
        if is_fresh:
            lie("a %s says it equals %s and an object it has never seen" % (name_of(x), show(e)))
        else:
            lie("a %s says it equals %s and also %s" % (name_of(x), show(e), show(p)))

    def verify_equal(x, e, claim):
        """x (not plain) was said to be equal (claim True) or not (False) to
        e (plain): judge it."""
        r = reduced(x)
        if r is not NOT:
            honest = r == e
            if claim != honest:
                lie("a %s compared as the builtin it is %s %s, but it says %s" % (
                    name_of(x), "equals" if honest else "does not equal", show(e),
                    "it does" if claim else "it does not"))
            return
        if not claim or trusted(x):
            return
        if isinstance(x, (list, tuple)) and b_type(e) in (list, tuple):
            items = list(list.__iter__(x) if isinstance(x, list) else tuple.__iter__(x))
            same_kind = isinstance(x, list) == (b_type(e) is list)
            if not same_kind or len(items) != len(e):
                lie("a %s says it equals %s, which a %s of its %d items does not" % (
                    name_of(x), show(e), "list" if isinstance(x, list) else "tuple", len(items)))
                return
            for xi, ei in zip(items, e):
                if not plain(xi):
                    verify_equal(xi, ei, True)
            return
        if isinstance(x, dict) and b_type(e) is dict:
            items = list(dict.items(x))
            if len(items) != len(e):
                lie("a %s says it equals %s, which a dict of its %d items does not" % (name_of(x), show(e), len(items)))
                return
            for k, v in items:
                if plain(k):
                    if k not in e:
                        lie("a %s says it equals %s without its key %s" % (name_of(x), show(e), show(k)))
                        return
                    if not plain(v):
                        verify_equal(v, e[k], True)
                elif not trusted(k) and claims_equal(k, fresh()):
                    lie("a key of type %s says it equals an object it has never seen" % name_of(k))
                    return
            return
        if isinstance(x, (set, frozenset)):
            for xi in list(set.__iter__(x) if isinstance(x, set) else frozenset.__iter__(x)):
                if not plain(xi) and not trusted(xi) and claims_equal(xi, fresh()):
                    lie("an element of type %s says it equals an object it has never seen" % name_of(xi))
                    return
            return
        _, _, said = probe(x, e, lambda: True)
        judge_probes(x, e, said)

    def sentinel_check(x):
        if not trusted(x) and claims_equal(x, fresh()):
            lie("a %s says it equals an object it has never seen" % name_of(x))

    def check_eq(op, a, b):
        pa, pb = is_plain(a), is_plain(b)
        if pa is None or pb is None:
            return a == b if op == "==" else a != b
        if pa and pb:
            return a == b if op == "==" else a != b
        if pa or pb:
            x, e = (b, a) if pa else (a, b)
            if op == "==" and reduced(x) is NOT and not trusted(x) and not isinstance(x, (list, tuple, dict, set, frozenset)):
                result, claim, said = probe(x, e, lambda: a == b)
                if claim:
                    judge_probes(x, e, said)
                return result
            result = a == b if op == "==" else a != b
            claim = truth(result)
            if claim is not None:
                verify_equal(x, e, claim if op == "==" else not claim)
            if op == "!=" and claim and claims_equal(a, b):
                lie("a %s says it both equals and does not equal %s" % (name_of(x), show(e)))
            return result
        result = a == b if op == "==" else a != b
        claim = truth(result)
        if op == "==" and claim:
            for x in (a, b):
                sentinel_check(x)
        elif op == "!=" and claim and claims_equal(a, b):
            lie("a %s says it both equals and does not equal a %s" % (name_of(a), name_of(b)))
        return result

    def verify_in(x, c, claim):
        """x was said to be in c (claim True) or not (False)."""
        px, pc = is_plain(x), is_plain(c)
        if px is None or pc is None or (px and pc):
            return
        if pc:
            r = reduced(x)
            if r is not NOT:
                try:
                    honest = r in c
                except TypeError:
                    return
                if honest != claim:
                    lie("a %s compared as the builtin it is is %sin %s, but it says it is%s" % (
                        name_of(x), "" if honest else "not ", show(c), "" if claim else " not"))
                return
            if not claim or trusted(x) or b_type(c) in (str, bytes):
                return
            elems = list(c) if b_type(c) is not dict else list(c.keys())
            matches = [e for e in elems if claims_equal(x, e)]
            if not matches:
                lie("a %s says it is in %s, but equals none of its elements" % (name_of(x), show(c)))
                return
            verify_equal(x, matches[0], True)
            return
        r = reduced(c)
        if px and r is not NOT:
            try:
                honest = x in r
            except TypeError:
                return
            if honest != claim:
                lie("a %s compared as the builtin it is %s %s, but it says it does%s" % (
                    name_of(c), "holds" if honest else "does not hold", show(x), "" if claim else " not"))
            return
        if not claim or trusted(c):
            return
        if isinstance(c, (list, tuple, set, frozenset, dict)):
            base = dict if isinstance(c, dict) else list if isinstance(c, list) else tuple if isinstance(c, tuple) else set if isinstance(c, set) else frozenset
            elems = list(base.__iter__(c))
            if px:
                matches = [ci for ci in elems if claims_equal(ci, x)]
                if not matches:
                    lie("a %s says it holds %s, but none of its elements equals it" % (name_of(c), show(x)))
                    return
                if not plain(matches[0]):
                    verify_equal(matches[0], x, True)
            return
        if claims_in(fresh(), c):
            lie("a %s says it holds an object it has never seen" % name_of(c))

    def check(op, a, b):
        """CHECK: a op b, judged; returns what a op b returns."""
        if op == "==" or op == "!=":
            if b_type(a) in SCALARS and b_type(b) in SCALARS:
                return a == b if op == "==" else a != b
            return check_eq(op, a, b)
        result = a in b if op == "in" else a not in b
        claim = truth(result)
        if claim is not None:
            try:
                verify_in(a, b, claim if op == "in" else not claim)
            except (TooBig, RecursionError):
                pass
        return result

    def is_assertion(bound, name):
        f = getattr(bound, "__func__", None)
        if f is None:
            return False
        for tc in testcases:
            if tc.__dict__.get(name) is f or getattr(tc, name, None) is f:
                return True
        return False

    def two_arguments(name, args, kwargs):
        names = ARGUMENT_NAMES.get(name, ("first", "second"))
        vals = list(args[:2])
        rest_args = list(args[2:])
        kw = dict(kwargs)
        for n in names[len(vals):]:
            if n not in kw:
                return None
            vals.append(kw.pop(n))
        return vals[0], vals[1], rest_args, kw

    def verify_assertion(bound, name, args, kwargs):
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
                lie("%s passed for a %s and a %s, but fails for the builtin values they are" % (
                    name, name_of(first), name_of(second)))
            except Exception:  # noqa: BLE001 - not a verdict on the values
                pass
            return
        if kind == "==" or kind == "!=":
            if pa or pb:
                x, e = (second, first) if pa else (first, second)
                verify_equal(x, e, kind == "==")
            elif kind == "==":
                sentinel_check(first)
                sentinel_check(second)
        elif kind == "in" or kind == "not in":
            verify_in(first, second, kind == "in")
        elif kind == "seq":
            if isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)):
                xs = list(list.__iter__(first) if isinstance(first, list) else tuple.__iter__(first))
                ys = list(list.__iter__(second) if isinstance(second, list) else tuple.__iter__(second))
                for x, y in zip(xs, ys):
                    if plain(y) and not plain(x):
                        verify_equal(x, y, True)
                    elif plain(x) and not plain(y):
                        verify_equal(y, x, True)
        elif kind == "count":
            for side in (first, second):
                if isinstance(side, (list, tuple, set, frozenset)):
                    for v in list(side):
                        if not plain(v):
                            sentinel_check(v)
        elif kind == "almost":
            for x, e in ((first, second), (second, first)):
                if not plain(x) and not trusted(x) and b_type(e) in (int, float):
                    far = e + 1 + 2 * abs(e) + 3 * abs(kw.get("delta") or 0)
                    for p in (far, fresh()):
                        try:
                            bound(x, p, *rest, **kw)
                        except Exception:  # noqa: BLE001 - rejected, as it should be
                            continue
                        lie("%s passes for a %s against %s and against %s" % (name, name_of(x), show(e), show(p)))
                        return

    def assertion(bound, name, *args, **kwargs):
        """ASSERT: bound(*args, **kwargs), judged when bound is a unittest
        assertion that passed."""
        result = bound(*args, **kwargs)
        try:
            if is_assertion(bound, name):
                verify_assertion(bound, name, args, kwargs)
        except (TooBig, RecursionError):
            pass
        return result

    return check, assertion
