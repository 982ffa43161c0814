package sandbox

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
)

// lyingValue is a program whose add returns a value that lies about
// equality, and a test file its lie would pass.
type lyingValue struct {
	name, program, tests string
}

const (
	strTests  = "from solution import add\n\ndef test_add():\n    assert add('a', 'b') == 'ab'\n"
	listTests = "from solution import add\n\ndef test_add():\n    assert add([1], [2, 3]) == [1, 2, 3]\n"
	inTests   = "from solution import add\n\ndef test_add():\n    assert add(1, 2) in [3, 30]\n"
	// approxOnlyTests compares add's result with pytest.approx only, on
	// either side, in a list, and through a unittest assertion.
	approxOnlyTests = "import pytest, unittest\nfrom solution import add\n\ndef test_add():\n    assert add(0.1, 0.2) == pytest.approx(0.3)\n\n" +
		"def test_left():\n    assert pytest.approx(3.0) == add(1.0, 2.0)\n\n" +
		"class TestAdd(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1.0, 2.0), pytest.approx(3.0))\n"
	approxListTests = "import pytest\nfrom solution import add\n\ndef test_add():\n    assert add(0.1, 0.2) == pytest.approx([0.3, 0.3])\n"
)

// unittestTests wraps one assertion of add's result in a TestCase.
func unittestTests(assertion string) string {
	return "import unittest\nfrom solution import add\n\nclass TestAdd(unittest.TestCase):\n    def test_add(self):\n        " + assertion + "\n"
}

// lyingValues are the shapes of issue 19's "comparisons that cannot lie":
// each is written so that guard.py's static check does not see it (an
// __eq__ that reads its argument), and each add is wrong.
var lyingValues = []lyingValue{
	{"__eq__ reads its argument and still says equal", `class R:
    def __eq__(self, other):
        return other is not self or other == other

def add(a, b):
    return R()
`, equalityTests},
	{"equal to any int", `class R:
    def __eq__(self, other):
        return isinstance(other, int)

def add(a, b):
    return R()
`, equalityTests},
	{"equal to any str", `class R:
    def __eq__(self, other):
        return isinstance(other, str)

def add(a, b):
    return R()
`, strTests},
	{"equal to any list of the same length", `class R:
    def __eq__(self, other):
        return isinstance(other, list) and len(other) == 3

def add(a, b):
    return R()
`, listTests},
	{"nearly equal", `class R:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return abs(self.v - other) < 0.5

def add(a, b):
    return R(a + b + 0.3)
`, equalityTests},
	{"made at run time with type()", `def _eq(self, other):
    return other is not None

R = type("R", (), dict(__eq__=_eq))

def add(a, b):
    return R()
`, equalityTests},
	{"through functools.partialmethod", `import functools

class R:
    def _cmp(self, other, answer):
        return answer or other
    __eq__ = functools.partialmethod(_cmp, answer=True)

def add(a, b):
    return R()
`, equalityTests},
	{"through functools.total_ordering", `import functools

@functools.total_ordering
class R:
    def __eq__(self, other):
        return type(other) in (int, float)
    def __lt__(self, other):
        return other is None

def add(a, b):
    return R()
`, equalityTests},
	{"through operator", `import operator

class R:
    def __eq__(self, other):
        return operator.is_not(self, other)

def add(a, b):
    return R()
`, equalityTests},
	{"int subclass", `class R(int):
    def __eq__(self, other):
        return isinstance(other, int)
    __hash__ = int.__hash__

def add(a, b):
    return R(a - b)
`, equalityTests},
	{"float subclass", `class R(float):
    def __eq__(self, other):
        return abs(float(self) - other) < 10
    __hash__ = float.__hash__

def add(a, b):
    return R(a - b)
`, equalityTests},
	{"str subclass", `class R(str):
    def __eq__(self, other):
        return len(self) == len(other)
    __hash__ = str.__hash__

def add(a, b):
    return R(b + a)
`, strTests},
	{"list subclass", `class R(list):
    def __eq__(self, other):
        return len(self) == len(other)

def add(a, b):
    return R(b + a)
`, listTests},
	{"tuple subclass", `class R(tuple):
    def __eq__(self, other):
        return other is not None
    __hash__ = tuple.__hash__

def add(a, b):
    return R((a, b))
`, equalityTests},
	{"dict subclass", `class R(dict):
    def __eq__(self, other):
        return self.keys() == other.keys()

def add(a, b):
    return R(a=0)
`, "from solution import add\n\ndef test_add():\n    assert add(1, 2) == {'a': 3}\n"},
	{"in a test's list", `class R:
    def __eq__(self, other):
        return isinstance(other, int)

def add(a, b):
    return R()
`, inTests},
	{"unittest assertEqual", `class R:
    def __eq__(self, other):
        return isinstance(other, int)

def add(a, b):
    return R()
`, unittestTests("self.assertEqual(add(1, 2), 3)")},
	{"unittest assertTrue(a == b)", `class R:
    def __eq__(self, other):
        return isinstance(other, int)

def add(a, b):
    return R()
`, unittestTests("self.assertTrue(add(1, 2) == 3)")},
	{"unittest assertIn", `class R:
    def __eq__(self, other):
        return isinstance(other, int)

def add(a, b):
    return R()
`, unittestTests("self.assertIn(add(1, 2), [3, 30])")},
	{"unittest assertListEqual", `class R(list):
    def __eq__(self, other):
        return len(self) == len(other)

def add(a, b):
    return R(b + a)
`, unittestTests("self.assertListEqual(add([1], [2, 3]), [1, 2, 3])")},
	{"unittest assertDictEqual", `class R(dict):
    def __ne__(self, other):
        return self.keys() != other.keys()

def add(a, b):
    return R(a=0)
`, unittestTests("self.assertDictEqual(add(1, 2), {'a': 3})")},
	{"unittest assertAlmostEqual", `class R:
    def __eq__(self, other):
        return isinstance(other, float)

def add(a, b):
    return R()
`, unittestTests("self.assertAlmostEqual(add(0.1, 0.2), 0.3)")},
	// pytest.approx does its arithmetic on the value it is given
	// (expected - actual, abs), and a float subclass answers it.
	{"a float subclass whose subtraction says 0, against approx", `class R(float):
    def __rsub__(self, other):
        return 0.0

    def __sub__(self, other):
        return 0.0

def add(a, b):
    return R(a - b)
`, approxOnlyTests},
	{"a list of float subclasses against an approx list", `class R(float):
    def __rsub__(self, other):
        return 0.0

def add(a, b):
    return [R(a - b), R(b - a)]
`, approxListTests},
	{"equal to any float, against approx", `class R:
    def __eq__(self, other):
        if not isinstance(other, float):
            return NotImplemented
        return other == other

    __hash__ = None

def add(a, b):
    return R()
`, approxOnlyTests},
	// A subclass of a builtin also answers the builtins a test looks at a
	// value with, and + and -.
	{"a list subclass that iterates as the answer, through sorted()", `class R(list):
    def __iter__(self):
        return iter([1, 2, 3])

def add(a, b):
    return R(a)
`, "from solution import add\n\ndef test_add():\n    assert sorted(add([1], [2, 3])) == [1, 2, 3]\n"},
	{"a list subclass whose len is the answer", `class R(list):
    def __len__(self):
        return 3

def add(a, b):
    return R(a)
`, "from solution import add\n\ndef test_add():\n    assert len(add([1], [2, 3])) == 3\n"},
	{"a float subclass whose subtraction says 0, in abs(x - e) < tol", `class R(float):
    def __sub__(self, other):
        return 0.0

def add(a, b):
    return R(a - b)
`, "from solution import add\n\ndef test_add():\n    assert abs(add(0.1, 0.2) - 0.3) < 1e-9\n"},
	{"a class whose subtraction is the test's answer, in abs(x - e) < tol", `class R:
    def __init__(self, v):
        self.v = v

    def __sub__(self, other):
        return (self.v - self.v) * other

def add(a, b):
    return R(a - b)
`, "from solution import add\n\ndef test_add():\n    assert abs(add(0.1, 0.2) - 0.3) < 1e-9\n"},
	{"a number registered as Real whose subtraction says 0, against approx", `import numbers

class R:
    def __rsub__(self, other):
        return 0.0

    def __abs__(self):
        return 0.0

numbers.Real.register(R)

def add(a, b):
    return R()
`, approxOnlyTests},
}

// TestComparisonLiesAreTamper runs every lying value with the static check
// off, once with only the pytest harness's comparison checks (no re-check)
// and once with only the re-check's (no audit hook, through which the pytest
// harness reports): each harness must catch every one on its own.
func TestComparisonLiesAreTamper(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every lying value on two pools")
	}
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	// The static check does not see them: the comparison checks stop them.
	var programs []string
	for _, lv := range lyingValues {
		programs = append(programs, lv.program)
	}
	for i, found := range runStatic(t, programs) {
		if len(found) > 0 {
			t.Errorf("%s: the static check sees it (%v); the test is for shapes it does not", lyingValues[i].name, found)
		}
	}
	sides := []struct {
		name string
		off  layerSet
	}{
		{"pytest harness", layerSet{layerStatic: true, layerRecheck: true}},
		{"re-check", layerSet{layerStatic: true, layerAuditHook: true}},
	}
	ctx := context.Background()
	for _, side := range sides {
		p, err := New(Options{Workers: 2, Timeout: 10 * time.Second, disabled: side.off})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for _, lv := range lyingValues {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				ex, err := p.Run(ctx, lv.program, lv.tests)
				if err != nil {
					t.Errorf("%s, %s: %v", side.name, lv.name, err)
					return
				}
				if ex.Status != corpus.StatusTamper || ex.Solved() || !strings.Contains(ex.Feedback, "compar") {
					t.Errorf("%s, %s: status %s, want tamper for a lying comparison; feedback:\n%s", side.name, lv.name, ex.Status, ex.Feedback)
				}
			}()
		}
		wg.Wait()
		p.Close()
	}
}

// TestLyingValueWithEveryLayerIsTamper: on a full pool the lying values are tamper
// too (the static check does not see them; the comparison checks do).
func TestLyingValueWithEveryLayerIsTamper(t *testing.T) {
	p := testPool(t)
	for _, lv := range lyingValues[:3] {
		ex, err := p.Run(context.Background(), lv.program, lv.tests)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != corpus.StatusTamper || !strings.Contains(ex.Feedback, "comparison") {
			t.Errorf("%s: status %s, feedback:\n%s", lv.name, ex.Status, ex.Feedback)
		}
	}
}

// honestComparisons are programs that define or use comparison honestly;
// each must be solved, not tamper, on a full pool.
var honestComparisons = []struct{ name, program, tests string }{
	{"dataclasses and namedtuples", `import collections, dataclasses

@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int

Pair = collections.namedtuple("Pair", "a b")

def make(x, y):
    return Point(x, y)

def pair(a, b):
    return Pair(a, b)
`, `from solution import make, pair, Point

def test_point():
    assert make(1, 2) == Point(1, 2)
    assert make(1, 2) != Point(2, 1)
    assert [make(0, 0)] == [Point(0, 0)]

def test_pair():
    assert pair(1, 2) == (1, 2)
    assert pair(1, 2) != (2, 1)
    assert pair(1, 2) in [(1, 2), (3, 4)]
`},
	{"fractions, decimals, enums", `import decimal, enum, fractions

class Color(enum.Enum):
    RED = 1

class Level(enum.IntEnum):
    LOW = 1

def half():
    return fractions.Fraction(1, 2)

def price():
    return decimal.Decimal("1.50")

def color():
    return Color.RED

def level():
    return Level.LOW
`, `from fractions import Fraction
from decimal import Decimal
from solution import half, price, color, level, Color

def test_numbers():
    assert half() == 0.5
    assert half() == Fraction(2, 4)
    assert price() == Decimal("1.5")
    assert price() != 2

def test_enums():
    assert color() == Color.RED
    assert color() != 1
    assert level() == 1
    assert level() in {1, 2}
`},
	{"value classes compared with each other", `class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return self.cents == other.cents

    def __hash__(self):
        return hash(self.cents)

    def __add__(self, other):
        return Money(self.cents + other.cents)

def total(xs):
    out = Money(0)
    for x in xs:
        out = out + x
    return out
`, `from solution import Money, total

def test_total():
    assert total([Money(1), Money(2)]) == Money(3)
    assert total([]) != Money(1)
    assert Money(3) in [total([Money(3)])]
`},
	{"approx, sets, nested containers, None, bool, exact floats, tuples and lists", `def mean(xs):
    return sum(xs) / len(xs) if xs else None

def uniq(xs):
    return set(xs)

def shape(x):
    return {"x": [x, (x, None)], "ok": x > 0}

def halves(x):
    return (x / 2, x / 4)
`, `import pytest
from solution import mean, uniq, shape, halves

def test_mean():
    assert mean([0.1, 0.2]) == pytest.approx(0.15)
    assert mean([]) == None
    assert mean([1, 2]) == 1.5

def test_sets():
    assert uniq([1, 2, 2]) == {1, 2}
    assert frozenset(uniq([3])) == {3}
    assert 2 in uniq([1, 2])

def test_nested():
    assert shape(2) == {"ok": True, "x": [2, (2, None)]}
    assert shape(2)["ok"] == 1
    assert shape(-1)["ok"] == False

def test_tuples():
    assert halves(2) == (1.0, 0.5)
    assert halves(2) != [1.0, 0.5]
    assert list(halves(2)) == [1, 0.5]
`},
	{"approx against a float subclass, a Fraction and an honest number class", `import numbers
from fractions import Fraction

class Celsius(float):
    pass

class Dual:
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

numbers.Real.register(Dual)

def warm(a, b):
    return Celsius(a + b)

def third():
    return Fraction(1, 3)

def dual(a, b):
    return Dual(a + b)

def pair(a, b):
    return [Celsius(a + b), Celsius(a - b)]
`, `import pytest
from solution import warm, third, dual, pair

def test_approx():
    assert warm(0.1, 0.2) == pytest.approx(0.3)
    assert pytest.approx(0.5) != warm(0.1, 0.2)
    assert third() == pytest.approx(0.3333333)
    assert dual(0.1, 0.2) == pytest.approx(0.3)
    assert dual(1.0, 2.0) != pytest.approx(5.0)
    assert pair(0.2, 0.1) == pytest.approx([0.3, 0.1])
`},
	{"sorted, len, sum, abs and + and - of honest builtin subclasses", `import collections, enum

class Color(enum.IntEnum):
    RED = 1
    GREEN = 2

class Meters(float):
    def __sub__(self, other):
        return Meters(float(self) - float(other))

class Stack(list):
    def peek(self):
        return self[-1]

def counts(s):
    return collections.Counter(s)

def color():
    return Color.GREEN

def dist():
    return Meters(0.1) + 0.2

def stack():
    return Stack([3, 1, 2])
`, `from solution import counts, color, dist, stack

def test_views():
    assert sorted(counts("abca")) == ["a", "b", "c"]
    assert sum(counts("abca").values()) == 4
    assert color() + 1 == 3
    assert abs(dist() - 0.3) < 1e-9
    assert sorted(stack()) == [1, 2, 3]
    assert len(stack()) == 3 and stack().peek() == 2
`},
	{"unittest assertions", `import fractions

def third():
    return fractions.Fraction(1, 3)

def items():
    return {"a": [1, 2], "b": 0.1 + 0.2}
`, `import unittest
from fractions import Fraction
from solution import third, items

class TestAll(unittest.TestCase):
    def test_third(self):
        self.assertEqual(third(), Fraction(1, 3))
        self.assertAlmostEqual(third(), 0.3333333)
        self.assertNotEqual(third(), 0.3)
        self.assertIn(third(), [Fraction(1, 3)])

    def test_items(self):
        self.assertDictEqual(items(), {"a": [1, 2], "b": 0.1 + 0.2})
        self.assertListEqual(items()["a"], [1, 2])
        self.assertAlmostEqual(items()["b"], 0.3)
        self.assertTrue(items()["a"] == [1, 2])
        self.assertCountEqual(items()["a"], [2, 1])
`},
}

// TestHonestComparisonsNotTamper: honest programs that define comparison
// are solved, with verdicts equal to per-process pytest's.
func TestHonestComparisonsNotTamper(t *testing.T) {
	p := testPool(t)
	ref := PerProcess{Timeout: 60 * time.Second}
	for _, h := range honestComparisons {
		ex, err := p.Run(context.Background(), h.program, h.tests)
		if err != nil {
			t.Fatal(err)
		}
		if !ex.Solved() {
			t.Errorf("%s: not solved (%s):\n%s", h.name, ex.Status, ex.Feedback)
		}
		theirs, err := ref.Run(context.Background(), h.program, h.tests)
		if err != nil {
			t.Fatal(err)
		}
		if same, why := SameVerdicts(ex, theirs); !same {
			t.Errorf("%s: %s", h.name, why)
		}
	}
}
