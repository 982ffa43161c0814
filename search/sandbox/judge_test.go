package sandbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"triage/corpus"
)

// The comparison lies of issue 19 and the pytest features, reference ids
// and honest programs 766706c's re-check and comparison checks were tested
// with, held to the two processes: a lie is a failure (no check of its own
// catches it: the judge never asks the program's ==), a feature gets plain
// pytest's verdicts.

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

var honestComparisons = []struct {
	name, program, tests string
	served               bool
}{
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
`, false},
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
`, true},
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
`, false},
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
`, true},
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
`, false},
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
`, false},
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
`, true},
}

// featureProgram is the solution every pytest feature case tests: the
// semantic tests' reference plus a function that warns.
func featureProgram(t *testing.T) string {
	return readTestdata(t, "kodcode_solution.py") + "\n\ndef warn():\n    import warnings\n    warnings.warn(\"careful\", UserWarning)\n    return 1\n"
}

// featureCases are test files that use pytest's features (the re-check of
// 766706c implemented these); each must pass (or fail) in the judge exactly
// as under pytest.
var featureCases = map[string]string{
	"parametrize stacked and pytest.param": `import pytest
from solution import add

@pytest.mark.parametrize("a", [1, 2, pytest.param(3, id="three")])
@pytest.mark.parametrize("b", [10, 20])
def test_add(a, b):
    assert add(a, b) == a + b

@pytest.mark.parametrize("a,b,c", [(1, 1, 2), pytest.param(1, 2, 3, marks=pytest.mark.xfail)])
def test_xfail_param(a, b, c):
    assert add(a, b) == c
`,
	"fixtures: scopes, yield, params, autouse, indirect, request": `import pytest
from solution import add, Stack

LOG = []

@pytest.fixture(scope="module")
def base():
    LOG.append("base")
    yield 100
    LOG.append("end")

@pytest.fixture(params=[1, 2, 3])
def n(request):
    return request.param

@pytest.fixture
def doubled(request):
    return request.param * 2

@pytest.fixture(autouse=True)
def marker():
    LOG.append("auto")

@pytest.fixture(name="stack")
def make_stack():
    s = Stack()
    s.push(1)
    yield s

def test_base(base, n):
    assert add(base, n) == 100 + n

@pytest.mark.parametrize("doubled", [5, 6], indirect=True)
def test_indirect(doubled):
    assert doubled in (10, 12)

def test_stack(stack, request):
    request.addfinalizer(lambda: LOG.append("fin"))
    assert stack.pop() == 1

def test_module_once():
    assert LOG.count("base") == 1
`,
	"classes, setup_method, nested, inherited, staticmethod": `from solution import add, Stack

class Base:
    def test_inherited(self):
        assert add(1, 1) == 2

class TestA(Base):
    def setup_method(self, method):
        self.s = Stack()
        self.s.push(3)

    def teardown_method(self, method):
        self.s = None

    def test_pop(self):
        assert self.s.pop() == 3

    @staticmethod
    def test_static():
        assert add(2, 2) == 4

    class TestInner:
        def test_inner(self):
            assert add(0, 0) == 0

class TestWithInit:
    def __init__(self):
        pass

    def test_never_collected(self):
        assert False
`,
	"builtin fixtures": `import os
import warnings
import pytest
from solution import shout, warn

def test_capsys(capsys):
    shout("hi")
    assert capsys.readouterr().out == "HI\n"

def test_capfd(capfd):
    shout("fd")
    os.write(1, b"raw\n")
    out, err = capfd.readouterr()
    assert "FD" in out and "raw" in out

def test_tmp_path(tmp_path):
    p = tmp_path / "x.txt"
    p.write_text("x")
    assert p.read_text() == "x"

def test_tmpdir(tmpdir):
    assert tmpdir.join("a").write("b") is None or True

def test_monkeypatch(monkeypatch):
    monkeypatch.setenv("TRIAGE_X", "1")
    assert os.environ["TRIAGE_X"] == "1"

def test_recwarn(recwarn):
    warn()
    assert len(recwarn) == 1

def test_warns():
    with pytest.warns(UserWarning):
        warn()
`,
	"marks: skip, skipif, xfail, usefixtures, filterwarnings": `import sys
import pytest
from solution import add, warn

@pytest.fixture
def flag():
    return True

@pytest.mark.skipif("sys.version_info < (3, 0)")
def test_skipif_false():
    assert add(1, 2) == 3

@pytest.mark.xfail(reason="known", strict=False)
def test_xpass():
    assert add(1, 2) == 3

@pytest.mark.usefixtures("flag")
def test_usefixtures():
    assert add(1, 1) == 2

@pytest.mark.filterwarnings("ignore::UserWarning")
def test_filtered():
    assert warn() == 1

pytestmark = pytest.mark.filterwarnings("default")
`,
	"unittest TestCase": `import unittest
from solution import add, Stack

class TestAdd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = 10

    def setUp(self):
        self.s = Stack()

    def test_add(self):
        self.assertEqual(add(self.base, 1), 11)

    def test_raises(self):
        with self.assertRaises(IndexError):
            self.s.pop()

    def test_subtests(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(add(i, i), 2 * i)
`,
	"xunit module and function set-up": `from solution import add

STATE = {}

def setup_module(module):
    STATE["m"] = 1

def teardown_module(module):
    STATE.clear()

def setup_function(function):
    STATE["f"] = function.__name__

def test_one():
    assert STATE["m"] == 1 and STATE["f"] == "test_one"

def test_two():
    assert add(STATE["m"], 1) == 2
`,
	"approx and raises": `import pytest
from solution import add, Stack

def test_approx():
    assert add(0.1, 0.2) == pytest.approx(0.3)
    assert [add(0.1, 0.2), 1.0] == pytest.approx([0.3, 1.0])

def test_raises():
    with pytest.raises(IndexError, match="empty"):
        Stack().pop()
`,
	"a skipped test keeps the run unsolved": `import pytest
from solution import add

def test_ok():
    assert add(1, 1) == 2

@pytest.mark.skip(reason="later")
def test_skipped():
    assert add(1, 1) == 2
`,
	"a strict xpass fails": `import pytest
from solution import add

@pytest.mark.xfail(strict=True)
def test_strict():
    assert add(1, 1) == 2
`,
}

// TestReferenceIDs: the ids a test file collects without a program, and
// when they cannot be known.
func TestReferenceIDs(t *testing.T) {
	p := testPool(t)
	cases := []struct {
		name  string
		tests string
		known bool
		ids   int
	}{
		{"plain", "from solution import add\n\ndef test_a():\n    assert add(1, 2) == 3\n\ndef test_b():\n    pass\n", true, 2},
		{"parametrized from literals", "import pytest\nfrom solution import add\n\n@pytest.mark.parametrize('x', [1, 2, 3])\ndef test_a(x):\n    assert add(x, 0) == x\n", true, 3},
		{"star import", "from solution import *\n\ndef test_a():\n    assert add(1, 2) == 3\n", true, 1},
		{"parameters from the program", "import pytest\nfrom solution import add\n\n@pytest.mark.parametrize('x', [add(1, 2)])\ndef test_a(x):\n    assert x == 3\n", false, 0},
		{"a class from the program", "from solution import Stack\n\nclass TestS(Stack):\n    def test_a(self):\n        pass\n", false, 0},
		{"syntax error", "def test_a(:\n", false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := expectOn(t, p, c.tests)
			if err != nil {
				t.Fatal(err)
			}
			if e.known != c.known || len(e.ids) != c.ids {
				t.Errorf("known %v ids %v (%s), want %v and %d ids", e.known, e.ids, e.why, c.known, c.ids)
			}
		})
	}
	// With the parameters taken from the program the run still works.
	ex, err := p.Run(context.Background(), featureProgram(t), cases[3].tests)
	if err != nil || !ex.Solved() {
		t.Errorf("run without reference ids: %v %s\n%s", err, ex.Status, ex.Feedback)
	}
}

// TestReferenceIDsCollectedOnce: runs that want the same new test file at
// once share one collection of it, and a run whose context ends while it
// waits for another's collection returns at once.
func TestReferenceIDsCollectedOnce(t *testing.T) {
	p := ownPool(t, Options{Workers: 3, Timeout: 5 * time.Second})
	tests := "from solution import add\n\ndef test_once():\n    assert add(2, 2) == 4\n"
	var wg sync.WaitGroup
	results := make([]corpus.Execution, 6)
	errs := make([]error, len(results))
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			program := fmt.Sprintf("def add(a, b):\n    return a + b + %d\n", i%2)
			results[i], errs[i] = p.Run(context.Background(), program, tests)
		}()
	}
	wg.Wait()
	for i, ex := range results {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if want := i%2 == 0; ex.Solved() != want {
			t.Errorf("run %d: solved %v, want %v (%s)\n%s", i, ex.Solved(), want, ex.Status, ex.Feedback)
		}
	}
	if n := p.collects.Load(); n != 1 {
		t.Errorf("%d collections of one test file, want 1", n)
	}

	// A waiter whose context ends does not wait for the collection.
	key := sha256.Sum256([]byte("def test_wait():\n    pass\n"))
	block := make(chan struct{})
	p.expMu.Lock()
	p.expFlight[key] = block
	p.expMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s := <-p.slots
	_, err := p.expectationFor(ctx, s, "def test_wait():\n    pass\n")
	p.slots <- s
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting with an ended context: %v, want the deadline", err)
	}
	// When the collection it waited for leaves nothing, it collects itself.
	go func() {
		time.Sleep(20 * time.Millisecond)
		p.expMu.Lock()
		delete(p.expFlight, key)
		p.expMu.Unlock()
		close(block)
	}()
	s = <-p.slots
	e, err := p.expectationFor(context.Background(), s, "def test_wait():\n    pass\n")
	p.slots <- s
	if err != nil || !e.known || len(e.ids) != 1 {
		t.Errorf("after the other collection left nothing: %v %+v", err, e)
	}
	if n := p.collects.Load(); n != 2 {
		t.Errorf("%d collections, want 2", n)
	}
}

// TestHonestStdlibUseIsSolved: what honest programs commonly use of the
// standard library works in the program process (namedtuple, typing and
// enum read frames; logging and traceback walk them; asyncio builds
// coroutines; a thread; the recursion limit raised).
func TestHonestStdlibUseIsSolved(t *testing.T) {
	p := testPool(t)
	program := `import asyncio, collections, dataclasses, decimal, enum, fractions, functools, heapq
import itertools, json, logging, random, re, sys, threading, traceback, typing

sys.setrecursionlimit(5000)
Point = collections.namedtuple("Point", "x y")
Color = enum.Enum("Color", "RED GREEN")

class Pair(typing.NamedTuple):
    a: int
    b: int

@dataclasses.dataclass(frozen=True)
class Box:
    w: int
    h: int

@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def describe_error():
    try:
        1 / 0
    except ZeroDivisionError:
        logging.getLogger("solution").warning("division", exc_info=True)
        return traceback.format_exc().splitlines()[-1]

async def _twice(x):
    await asyncio.sleep(0)
    return 2 * x

def twice(x):
    return asyncio.run(_twice(x))

def threaded_sum(xs):
    out = []
    t = threading.Thread(target=lambda: out.append(sum(xs)))
    t.start()
    t.join()
    return out[0]

def everything():
    rnd = random.Random(1)
    return (Point(1, 2).x, Color.RED.name, Pair(1, 2).b, Box(2, 3).w, fib(20), describe_error(), twice(21),
            threaded_sum([1, 2, 3]), str(decimal.Decimal("1.10") + decimal.Decimal("2.20")),
            str(fractions.Fraction(1, 3) * 3), heapq.nsmallest(1, [3, 1, 2])[0],
            list(itertools.islice(itertools.count(), 3)), json.loads('{"a": 1}')["a"],
            bool(re.fullmatch(r"a+", "aaa")), len([rnd.random() for _ in range(3)]))
`
	tests := `from solution import everything

def test_everything():
    assert everything() == (1, "RED", 2, 2, 6765, "ZeroDivisionError: division by zero", 42, 6, "3.30", "1", 1, [0, 1, 2], 1, True, 3)
`
	ex, err := p.Run(context.Background(), program, tests)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Solved() {
		t.Fatalf("honest program not solved: %s\n%s", ex.Status, ex.Feedback)
	}
}

// TestComparisonLiesFail: every comparison lie of issue 19 is a failure in
// the judge, through the direct runner and pytest's run: none is solved.
func TestComparisonLiesFail(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every lying value on two pools")
	}
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	if os.Geteuid() != 0 {
		t.Skip("the full sandbox needs root")
	}
	direct, viaPytest := runnerPools(t, Options{Workers: 2, Timeout: 10 * time.Second}, 0)
	ctx := context.Background()
	for _, side := range []struct {
		label string
		pool  *Pool
	}{{"direct runner", direct}, {"pytest's run", viaPytest}} {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for _, lv := range lyingValues {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				ex, err := side.pool.Run(ctx, lv.program, lv.tests)
				if err != nil {
					t.Errorf("%s, %s: %v", side.label, lv.name, err)
					return
				}
				if ex.Solved() || ex.Status == corpus.StatusOK && ex.PassRate == 1 {
					t.Errorf("%s, %s: solved; feedback:\n%s", side.label, lv.name, ex.Feedback)
				}
			}()
		}
		wg.Wait()
	}
}

// TestHonestComparisons: honest programs that compare values get plain
// pytest's verdicts where what they compare crosses as data; where they
// compare the program's own value classes or builtin subclasses (not served,
// README "Two processes") they are not solved.
func TestHonestComparisons(t *testing.T) {
	p := testPool(t)
	ref := PerProcess{Timeout: 60 * time.Second}
	for _, h := range honestComparisons {
		ex, err := p.Run(context.Background(), h.program, h.tests)
		if err != nil {
			t.Fatal(err)
		}
		if !h.served {
			if ex.Solved() {
				t.Errorf("%s: solved, though the judge does not serve it; update the README:\n%s", h.name, ex.Feedback)
			}
			continue
		}
		theirs, err := ref.Run(context.Background(), h.program, h.tests)
		if err != nil {
			t.Fatal(err)
		}
		if same, why := SameVerdicts(ex, theirs); !same || !ex.Solved() {
			t.Errorf("%s: %s (solved %v):\n%s", h.name, why, ex.Solved(), ex.Feedback)
		}
	}
}

// TestPytestFeaturesAgreeWithPytest runs each feature case through the
// direct runner and pytest's run in the judge and through per-process
// pytest: the same verdicts, and every case solved but the two whose file
// keeps it unsolved (a skip, a strict xpass).
func TestPytestFeaturesAgreeWithPytest(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	if os.Geteuid() != 0 {
		t.Skip("the full sandbox needs root")
	}
	direct, viaPytest := runnerPools(t, Options{Workers: 2, Timeout: 20 * time.Second}, 0)
	program := featureProgram(t)
	ref := PerProcess{Timeout: 60 * time.Second}
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	solved := 0
	sem := make(chan struct{}, 2)
	for name, tests := range featureCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			theirs, err := ref.Run(ctx, program, tests)
			if err != nil {
				t.Errorf("%s: pytest: %v", name, err)
				return
			}
			for _, side := range []struct {
				label string
				pool  *Pool
			}{{"direct runner", direct}, {"pytest's run", viaPytest}} {
				ours, err := side.pool.Run(ctx, program, tests)
				if err != nil {
					t.Errorf("%s, %s: %v", name, side.label, err)
					return
				}
				if same, why := SameVerdicts(ours, theirs); !same || ours.Status == corpus.StatusTamper {
					t.Errorf("%s, %s: %s (status %s)\nours:\n%s\npytest:\n%s", name, side.label, why, ours.Status,
						ours.Feedback, theirs.Feedback)
				}
				mu.Lock()
				if ours.Solved() {
					solved++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if want := 2 * (len(featureCases) - 2); solved != want && !t.Failed() {
		t.Errorf("%d runs solved, want %d", solved, want)
	}
}
