package sandbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
)

// recheckProgram is the solution every recheck case tests: the semantic
// tests' reference plus a function that warns.
func recheckProgram(t *testing.T) string {
	return readTestdata(t, "kodcode_solution.py") + "\n\ndef warn():\n    import warnings\n    warnings.warn(\"careful\", UserWarning)\n    return 1\n"
}

// recheckCases are test files that use the pytest features the re-check
// harness implements; each must pass (or fail) there exactly as under pytest.
var recheckCases = map[string]string{
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

// TestRecheckAgreesWithPytest runs each case through the pool (pytest
// harness, then the re-check for runs that pass) and through per-process
// pytest: a case that pytest solves must stay solved after the re-check,
// with the same number of tests.
func TestRecheckAgreesWithPytest(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	p := testPool(t)
	program := recheckProgram(t)
	ref := PerProcess{Timeout: 60 * time.Second}
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	solved := 0
	sem := make(chan struct{}, 2)
	for name, tests := range recheckCases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ours, err := p.Run(ctx, program, tests)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			theirs, err := ref.Run(ctx, program, tests)
			if err != nil {
				t.Errorf("%s: pytest: %v", name, err)
				return
			}
			if same, why := SameVerdicts(ours, theirs); !same {
				t.Errorf("%s: %s\nours (%s):\n%s\npytest:\n%s", name, why, ours.Status, ours.Feedback, theirs.Feedback)
			}
			if ours.Status == corpus.StatusTamper {
				t.Errorf("%s: tamper on an honest program:\n%s", name, ours.Feedback)
			}
			mu.Lock()
			if ours.Solved() {
				solved++
			} else {
				t.Logf("%s: not solved (%s):\n%s", name, ours.Status, ours.Feedback)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if want := len(recheckCases) - 2; solved != want && !t.Failed() {
		t.Errorf("%d cases solved, want %d", solved, want)
	}
}

// TestRecheckUnsupported: a test file that uses what the re-check does not
// implement is not counted as a fix, and says why.
func TestRecheckUnsupported(t *testing.T) {
	p := testPool(t)
	tests := "from solution import add\n\ndef test_caplog(caplog):\n    assert add(1, 1) == 2\n"
	ex, err := p.Run(context.Background(), recheckProgram(t), tests)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != corpus.StatusTamper || !strings.Contains(ex.Feedback, "does not support fixture caplog") {
		t.Errorf("status %s feedback:\n%s", ex.Status, ex.Feedback)
	}
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
	ex, err := p.Run(context.Background(), recheckProgram(t), cases[3].tests)
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

// TestHonestStdlibUseIsNotTamper: what honest programs commonly use of the
// standard library passes the audit hook and the static check, in both
// harnesses (namedtuple, typing and enum read frames; logging and traceback
// walk them; asyncio builds coroutines with types.coroutine).
func TestHonestStdlibUseIsNotTamper(t *testing.T) {
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
