package sandbox

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/corpus/mbpp"
)

// directEdgeSuites are (program, tests) pairs where the direct runner must
// match pytest's own run on what pytest does around a test: the recursion
// depth a test is called at, the warning filters of each phase, outcome
// exceptions and exits (handed back to pytest), names a star import brings
// that pytest would collect, failing imports, chained exceptions,
// multi-line statements, returned values, PYTEST_CURRENT_TEST,
// comparisons that lie and the order of a set of strings (the same in every
// worker: PYTHONHASHSEED is fixed).
func directEdgeSuites() []Suite {
	depth := `import sys


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)
`
	// Every depth around pytest's limit (about 962 frames free below a
	// test on this Python), and two well past it: an off-by-one padding
	// shows, and few tests pay pytest's long RecursionError text.
	var levels []string
	for n := 950; n <= 972; n++ {
		levels = append(levels, fmt.Sprint(n))
	}
	levels = append(levels, "985", "1000")
	depthTests := `import pytest
from solution import depth


@pytest.mark.parametrize("n", [` + strings.Join(levels, ", ") + `])
def test_depth(n):
    assert depth(n) == n
`
	add := "def add(a, b):\n    return a + b\n"
	addTests := `import pytest
from solution import add


@pytest.mark.parametrize("a,b,want", [(1, 2, 3), (2, 2, 4)], ids=["small", "same"])
def test_add(a, b, want):
    assert add(a, b) == want


def test_add_zero():
    assert add(0, 0) == 0
`
	starTests := `from solution import *


def test_add():
    assert add(1, 2) == 3
`
	return append([]Suite{
		{Name: "edge/recursion-depth", Program: depth, Tests: depthTests},
		{Name: "edge/recursion-limit-raised", Program: depth + "sys.setrecursionlimit(1100)\n", Tests: depthTests},
		{Name: "edge/warnings-error-at-import", Program: "import warnings\nwarnings.simplefilter('error')\n\n" +
			"def add(a, b):\n    warnings.warn('old', DeprecationWarning)\n    return a + b\n", Tests: addTests},
		{Name: "edge/system-exit-in-test", Program: "import sys\n\ndef add(a, b):\n    sys.exit(3)\n", Tests: addTests},
		{Name: "edge/skip-in-test", Program: "import pytest\n\ndef add(a, b):\n    pytest.skip('no')\n", Tests: addTests},
		{Name: "edge/xfail-in-test", Program: "import pytest\n\ndef add(a, b):\n    pytest.xfail('no')\n", Tests: addTests},
		{Name: "edge/fail-in-test", Program: "import pytest\n\ndef add(a, b):\n    pytest.fail('no', pytrace=False)\n", Tests: addTests},
		{Name: "edge/fail-with-trace-in-test", Program: "import pytest\n\ndef add(a, b):\n    pytest.fail('no')\n", Tests: addTests},
		{Name: "edge/raises-saw-nothing", Program: add, Tests: "import pytest\nfrom solution import add\n\n\ndef test_add():\n    with pytest.raises(TypeError):\n        add(1, 2)\n\n\n" +
			"def test_add_match():\n    with pytest.raises(ValueError, match='x'):\n        add(1, 2)\n\n\ndef test_add_ok():\n    assert add(1, 2) == 3\n"},
		{Name: "edge/base-exception-in-test", Program: "class Stop(BaseException):\n    pass\n\ndef add(a, b):\n    raise Stop('out')\n", Tests: addTests},
		{Name: "edge/generator-exit-in-test", Program: "def add(a, b):\n    raise GeneratorExit\n", Tests: addTests},
		{Name: "edge/unittest-skip-in-test", Program: "import unittest\n\ndef add(a, b):\n    raise unittest.SkipTest('later')\n", Tests: addTests},
		{Name: "edge/unittest-skip-subclass", Program: "import unittest\n\nclass Later(unittest.SkipTest):\n    pass\n\ndef add(a, b):\n    raise Later('later')\n", Tests: addTests},
		{Name: "edge/keyboard-interrupt", Program: "def add(a, b):\n    raise KeyboardInterrupt\n", Tests: addTests},
		{Name: "edge/star-import-brings-a-test", Program: add + "\n\ndef test_extra():\n    pass\n\n__all__ = ['add', 'test_extra']\n", Tests: starTests},
		{Name: "edge/star-import-brings-a-mark", Program: add + "import pytest\npytestmark = pytest.mark.skip\n__all__ = ['add', 'pytestmark']\n", Tests: starTests},
		{Name: "edge/star-import-brings-setup", Program: add + "\n\ndef setup_module(m):\n    raise RuntimeError('set-up')\n\n__all__ = ['add', 'setup_module']\n", Tests: starTests},
		{Name: "edge/star-import-brings-getattr", Program: add + "\n\ndef __getattr__(name):\n    return False\n\n__all__ = ['add', '__getattr__']\n", Tests: starTests},
		{Name: "edge/logging-basic-config", Program: "import logging\n\ndef add(a, b):\n    logging.basicConfig()\n    return len(logging.getLogger().handlers)\n",
			Tests: "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 0\n"},
		{Name: "edge/import-fails", Program: "raise ImportError('nope')\n", Tests: addTests},
		{Name: "edge/syntax-error", Program: "def add(a, b)\n    return a + b\n", Tests: addTests},
		{Name: "edge/chained", Program: "def add(a, b):\n    try:\n        return {}[a]\n    except KeyError as e:\n        raise ValueError('bad') from e\n", Tests: addTests},
		{Name: "edge/multi-line-assert", Program: "def add(a, b):\n    return [a, b]\n", Tests: "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == [\n        1,\n        3,\n    ]\n    x = 1\n"},
		{Name: "edge/returns-a-value", Program: add, Tests: "from solution import add\n\n\ndef test_add():\n    return add(1, 2)\n"},
		{Name: "edge/pytest-current-test", Program: "import os\n\ndef add(a, b):\n    return os.environ.get('PYTEST_CURRENT_TEST')\n",
			Tests: "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 'test_solution.py::test_add (call)'\n"},
		{Name: "edge/lying-eq", Program: "class Any:\n    def __eq__(self, other):\n        return True\n\ndef add(a, b):\n    return Any()\n", Tests: addTests},
		{Name: "edge/comment-first-lying-eq", Program: "class Any(int):\n    def __eq__(self, other):\n        return True\n\ndef add(a, b):\n    return Any(0)\n",
			Tests: "# tests of add\n\nfrom solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
		{Name: "edge/prints", Program: "def add(a, b):\n    print('x' * 100000)\n    return a - b\n", Tests: addTests},
		{Name: "edge/set-order", Program: "def words(s):\n    return list(set(s.split()))\n",
			Tests: "from solution import words\n\n\ndef test_words():\n    assert words('a b c d e f g h') == list('abcdefgh')\n"},
		// Program code that pytest's report runs (the failure's message)
		// and code run by a thread and a generator: lines a traced run
		// records.
		{Name: "edge/exception-str-in-program", Program: "class Bad(Exception):\n    def __str__(self):\n        return 'bad ' + repr(self.args)\n\n" +
			"def add(a, b):\n    raise Bad(a, b)\n", Tests: addTests},
		{Name: "edge/thread-and-generator", Program: "import threading\n\ndef gen(a, b):\n    yield a\n    yield b\n\n" +
			"def add(a, b):\n    out = []\n    t = threading.Thread(target=lambda: out.append(sum(gen(a, b))))\n    t.start()\n    t.join()\n    return out[0]\n", Tests: addTests},
		{Name: "edge/fixture-argument", Program: add, Tests: "from solution import add\n\n\ndef test_add(tmp_path):\n    assert add(1, 2) == 3\n"},
	}, append(directFixtureSuites(), directFailureTextSuites()...)...)
}

// directFailureTextSuites are failures whose text the direct runner writes
// itself (short_failure_text in worker.py) or must leave to pytest's
// formatter: program frames, multi-line statements, an exception with a
// multi-line message, hidden frames, frames of other files, a moved working
// directory, a source file the program tries to change or removes, code run
// with the program's file name, characters that split a line, an exception
// group, implicit and suppressed chains, methods of test classes.
func directFailureTextSuites() []Suite {
	addTests := "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"
	return []Suite{
		{Name: "edge/text-deep-program-frames", Program: "def div(a, b):\n    return a / b\n\nhalf = lambda a: div(a, 0)\n\ndef add(a, b):\n    return half(a) + b\n", Tests: addTests},
		{Name: "edge/text-continuation-line", Program: "def add(a, b):\n    return {'a': a}[\n        b]\n",
			Tests: "from solution import add\n\n\ndef test_add():\n    assert add(\n        1, 2) == 3\n"},
		{Name: "edge/text-multi-line-message", Program: "def add(a, b):\n    raise ValueError('one\\ntwo\\n\\nthree  ')\n", Tests: addTests},
		{Name: "edge/text-empty-message", Program: "def add(a, b):\n    raise AssertionError()\n", Tests: addTests},
		{Name: "edge/text-line-separator-in-message", Program: "def add(a, b):\n    raise KeyError('a\\u2028b\\x0cc')\n", Tests: addTests},
		{Name: "edge/text-tracebackhide-local", Program: "def add(a, b):\n    __tracebackhide__ = True\n    return a / 0\n", Tests: addTests},
		{Name: "edge/text-tracebackhide-callable", Program: "def add(a, b):\n    __tracebackhide__ = lambda e: False\n    return a / 0\n", Tests: addTests},
		{Name: "edge/text-tracebackhide-global", Program: "__tracebackhide__ = True\n\ndef add(a, b):\n    return a / 0\n", Tests: addTests},
		{Name: "edge/text-stdlib-frames", Program: "import json\n\ndef add(a, b):\n    return json.loads('{' + str(a))\n", Tests: addTests},
		{Name: "edge/text-chdir", Program: "import os\n\ndef add(a, b):\n    os.chdir('/')\n    return a - b\n", Tests: addTests},
		{Name: "edge/text-form-feed-before", Program: "def add(a, b):\n    x = '\x0c'\n    return a / 0\n", Tests: addTests},
		{Name: "edge/text-form-feed-after", Program: "def add(a, b):\n    return a / 0\n\ny = '\x0c'\n", Tests: addTests},
		{Name: "edge/text-tab-indent", Program: "def add(a, b):\n\tif a:\n\t\treturn a / 0\n\treturn b\n", Tests: addTests},
		{Name: "edge/text-file-rewritten", Program: "def add(a, b):\n    with open(__file__, 'w') as f:\n        f.write('# gone\\n' * 5)\n    return a / 0\n", Tests: addTests},
		{Name: "edge/text-file-shortened", Program: "def add(a, b):\n    with open(__file__, 'w') as f:\n        f.write('')\n    return a / 0\n", Tests: addTests},
		{Name: "edge/text-file-removed", Program: "import os\n\ndef add(a, b):\n    os.remove(__file__)\n    return a / 0\n", Tests: addTests},
		{Name: "edge/text-exec-with-program-name", Program: "def add(a, b):\n    exec(compile('\\n\\n\\n\\n\\n\\n1 / 0', __file__, 'exec'))\n", Tests: addTests},
		{Name: "edge/text-exception-group", Program: "def add(a, b):\n    raise ExceptionGroup('two', [ValueError(a), TypeError(b)])\n", Tests: addTests},
		{Name: "edge/text-implicit-chain", Program: "def add(a, b):\n    try:\n        return {}[a]\n    except KeyError:\n        return a / 0\n", Tests: addTests},
		{Name: "edge/text-suppressed-chain", Program: "def add(a, b):\n    try:\n        return {}[a]\n    except KeyError:\n        raise ValueError('no') from None\n", Tests: addTests},
		{Name: "edge/text-str-counts-its-calls", Program: "class Odd(Exception):\n    n = 0\n\n    def __str__(self):\n        Odd.n += 1\n        return 'call %d' % Odd.n\n\ndef add(a, b):\n    raise Odd()\n", Tests: addTests},
		{Name: "edge/text-recursion", Program: "def add(a, b):\n    return add(a, b) + 1\n", Tests: addTests},
		// RecursionErrors: the cut at the first repeat of position and
		// locals, no repeat at all, repeats through two functions, locals
		// of plain containers, a NaN that is the same object (equal) or a
		// new one each time (never), a program's object that leaves ==
		// alone, locals of the program's own type with an __eq__ (their
		// == is the program's: pytest writes those), a frame of the standard
		// library's, and one raised by hand.
		{Name: "edge/text-recursion-no-repeat", Program: "def add(a, b):\n    return add(a + 1, b)\n", Tests: addTests},
		{Name: "edge/text-recursion-mutual", Program: "def add(a, b):\n    return sub(a, b)\n\n\ndef sub(a, b):\n    return add(a, b) - 1\n", Tests: addTests},
		{Name: "edge/text-recursion-containers", Program: "def add(a, b, seen=None):\n    seen = [a, (b, 1.5), {'k': {None, 'x'}}, b'z']\n    return add(a, b, seen)\n", Tests: addTests},
		{Name: "edge/text-recursion-same-nan", Program: "NAN = float('nan')\n\n\ndef add(a, b):\n    return add(NAN, b)\n", Tests: addTests},
		{Name: "edge/text-recursion-new-nan", Program: "def add(a, b):\n    return add(float('nan'), b)\n", Tests: addTests},
		{Name: "edge/text-recursion-method", Program: "class Acc:\n    def add(self, a, b):\n        return self.add(a, b)\n\n\ndef add(a, b):\n    return Acc().add(a, b)\n", Tests: addTests},
		{Name: "edge/text-recursion-program-eq", Program: "class Box:\n    calls = 0\n\n    def __eq__(self, other):\n        Box.calls += 1\n        return Box.calls % 7 == 0\n\n    __hash__ = object.__hash__\n\n\ndef add(a, b):\n    return add(Box(), b)\n", Tests: addTests},
		{Name: "edge/text-recursion-stdlib-frame", Program: "import copy\n\n\nclass N:\n    def __deepcopy__(self, memo):\n        return copy.deepcopy(self)\n\n\ndef add(a, b):\n    return copy.deepcopy(N())\n", Tests: addTests},
		{Name: "edge/text-recursion-raised", Program: "def add(a, b):\n    raise RecursionError('by hand')\n", Tests: addTests},
		{Name: "edge/text-class-method", Program: "def add(a, b):\n    return a - b\n",
			Tests: "from solution import add\n\n\nclass TestAdd:\n    def test_add(self):\n        assert add(1, 2) == 3\n\n    def test_raises(self):\n        add(1, None)\n"},
		{Name: "edge/text-assert-message", Program: "def add(a, b):\n    return a - b\n",
			Tests: "from solution import add\n\n\ndef test_add():\n    # why\n    assert add(1, 2) == 3, 'add is off\\nby one'  # trailing comment\n"},
	}
}

// directFixtureSuites are pairs whose tests take fixtures or are methods
// of test classes: the order of set-up and teardown, what capsys captured
// in which phase, tmp_path's folder, monkeypatch's undo, a fresh instance
// per method, the phase a fixture sees, the root logger's handlers at
// set-up; and fixtures that fail (handed back to pytest). The names of the
// ones the direct runner keeps end in "-direct".
func directFixtureSuites() []Suite {
	prog := "import logging\nimport os\n\nLOG = []\n\n\ndef add(a, b):\n    return a + b\n\n\n" +
		"def shout(s):\n    print(s.upper())\n    return len(s)\n\n\ndef phase():\n    return os.environ.get('PYTEST_CURRENT_TEST')\n\n\n" +
		"def configure():\n    logging.basicConfig()\n    return len(logging.getLogger().handlers)\n"
	order := `import pytest
import solution
from solution import LOG, add


@pytest.fixture
def base():
    LOG.append("base up")
    yield 1
    LOG.append("base down")


@pytest.fixture
def top(base, mid):
    LOG.append("top up")
    yield base + mid
    LOG.append("top down")


@pytest.fixture
def mid(base):
    LOG.append("mid up")
    return base + 1


def test_first(top):
    assert top == 3


def test_order():
    assert LOG == ["base up", "mid up", "top up", "top down", "base down"]


def test_wrong(top, base):
    assert add(top, base) == 0
`
	capture := `import pytest
from solution import shout


@pytest.fixture
def loud():
    return shout("set-up")


def test_capsys_after(loud, capsys):
    shout("call")
    assert capsys.readouterr().out == "CALL\n"


def test_capsys_before(capsys, loud):
    shout("call")
    assert capsys.readouterr().out == "CALL\n"


def test_err(capsys):
    import sys
    print("x", file=sys.stderr)
    assert capsys.readouterr() == ("", "")
`
	paths := `from solution import add


def test_path(tmp_path):
    (tmp_path / "f").write_text("x")
    assert str(tmp_path) == ""


def test_path_again(tmp_path):
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


def test_path_param_names_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import os
    assert os.getcwd() == ""
`
	patch := `import solution
from solution import add


def test_patched(monkeypatch):
    monkeypatch.setattr(solution, "add", lambda a, b: 0)
    monkeypatch.setenv("TRIAGE_X", "1")
    assert solution.add(1, 2) == 0


def test_undone():
    import os
    assert solution.add(1, 2) == 3 and "TRIAGE_X" not in os.environ
`
	classes := `import pytest
from solution import add, phase, configure


@pytest.fixture
def seen():
    return phase()


@pytest.fixture
def handlers():
    return configure()


class TestA:
    def test_sets(self):
        self.x = 1
        assert add(1, 1) == 2

    def test_fresh(self):
        assert not hasattr(self, "x")

    @pytest.mark.parametrize("n", [1, 2])
    def test_param(self, n, seen):
        assert seen == "test_solution.py::TestA::test_param[%d] (setup)" % n

    def test_handlers(self, handlers):
        assert handlers == 99


def test_add():
    assert add(2, 2) == 5
`
	failing := func(body string) string {
		return "import pytest\nfrom solution import add\n\n\n@pytest.fixture\ndef f():\n" + body + "\n\ndef test_add(f):\n    assert add(1, 2) == 3\n"
	}
	return []Suite{
		{Name: "edge/fixture-order-direct", Program: prog, Tests: order},
		{Name: "edge/fixture-capsys-direct", Program: prog, Tests: capture},
		{Name: "edge/fixture-tmp-path-direct", Program: prog, Tests: paths},
		{Name: "edge/fixture-monkeypatch-direct", Program: prog, Tests: patch},
		{Name: "edge/fixture-classes-direct", Program: prog, Tests: classes},
		{Name: "edge/fixture-raises", Program: prog, Tests: failing("    raise ValueError('no')")},
		{Name: "edge/fixture-teardown-raises", Program: prog, Tests: failing("    yield 1\n    raise ValueError('no')")},
		{Name: "edge/fixture-yields-twice", Program: prog, Tests: failing("    yield 1\n    yield 2")},
		{Name: "edge/fixture-yields-nothing", Program: prog, Tests: failing("    if False:\n        yield 1")},
	}
}

// directParitySuites is the parity set: every 2nd benchmark pair, the edge
// pairs, every 3rd bundled task's reference and first buggy root, and every
// 20th MBPP task's reference and a broken copy of it.
func directParitySuites(t *testing.T) []Suite {
	bench, err := BenchSuites()
	if err != nil {
		t.Fatal(err)
	}
	var suites []Suite
	for i := 0; i < len(bench); i += 2 {
		suites = append(suites, bench[i])
	}
	suites = append(suites, directEdgeSuites()...)
	tasks, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(tasks); i += 3 {
		task := tasks[i]
		suites = append(suites, Suite{Name: task.ID + "/ref", Program: task.Solution, Tests: task.Test})
		if len(task.Roots) > 0 {
			suites = append(suites, Suite{Name: task.ID + "/root", Program: task.Roots[0], Tests: task.Test})
		}
	}
	more, err := mbpp.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(more); i += 20 {
		task := more[i]
		suites = append(suites, Suite{Name: task.ID + "/ref", Program: task.Solution, Tests: task.Test})
		broken := strings.Replace(task.Solution, "return ", "return None and ", 1)
		if broken != task.Solution {
			suites = append(suites, Suite{Name: task.ID + "/broken", Program: broken, Tests: task.Test})
		}
	}
	return suites
}

// TestDirectRunnerMatchesPytest runs the parity set on a pool with the
// direct runner and on one with it off (pytest collects and runs every
// file): statuses, per-test verdicts and messages and the feedback text are
// the same, byte for byte. -short runs every 6th pair.
func TestDirectRunnerMatchesPytest(t *testing.T) {
	suites := directParitySuites(t)
	if testing.Short() {
		var sub []Suite
		for i, s := range suites {
			if i%6 == 0 || strings.HasPrefix(s.Name, "edge/") {
				sub = append(sub, s)
			}
		}
		suites = sub
	}
	// A wall backstop far above any pair's run: pytest's text for many
	// RecursionErrors takes seconds on a loaded machine.
	direct := ownPool(t, Options{Workers: 2, Timeout: 60 * time.Second})
	pytest := ownPool(t, Options{Workers: 2, Timeout: 60 * time.Second, disabled: layerSet{layerDirect: true}})
	type pair struct{ got, want, gotLines, wantLines corpus.Execution }
	results := make([]pair, len(suites))
	// Every 2nd pair and every edge pair also runs with per-test line
	// coverage, as a corpus build runs the programs that get proposals.
	traced := func(i int) bool { return i%2 == 0 || strings.HasPrefix(suites[i].Name, "edge/") }
	var wg sync.WaitGroup
	ctx := context.Background()
	for i, s := range suites {
		wg.Add(1)
		go func() { // the pools' slots bound how many run at once
			defer wg.Done()
			var err error
			if results[i].got, err = direct.Run(ctx, s.Program, s.Tests); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
			if results[i].want, err = pytest.Run(ctx, s.Program, s.Tests); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
			if !traced(i) {
				return
			}
			lines := corpus.RunOptions{Coverage: true}
			if results[i].gotLines, err = direct.RunWith(ctx, s.Program, s.Tests, lines); err != nil {
				t.Errorf("%s with coverage: %v", s.Name, err)
			}
			if results[i].wantLines, err = pytest.RunWith(ctx, s.Program, s.Tests, lines); err != nil {
				t.Errorf("%s with coverage: %v", s.Name, err)
			}
		}()
	}
	wg.Wait()
	if n := pytest.direct.Load() + pytest.fallbacks.Load(); n != 0 {
		t.Fatalf("%d runs went to the direct runner with it switched off", n)
	}
	ran, back := direct.direct.Load(), direct.fallbacks.Load()
	nTraced := 0
	for i := range suites {
		if traced(i) {
			nTraced++
		}
	}
	t.Logf("%d pairs, %d of them also with coverage: %d runs went directly, %d were handed back to pytest", len(suites), nTraced, ran, back)
	if ran < int64(len(suites)+nTraced)/3 || back == 0 {
		t.Errorf("the direct runner ran %d and handed back %d of %d pairs", ran, back, len(suites))
	}
	// A few pairs whose verdict is known, whichever runner gave it.
	want := map[string]corpus.Status{
		"edge/lying-eq":                  corpus.StatusOK,
		"edge/comment-first-lying-eq":    corpus.StatusOK,
		"edge/star-import-brings-a-test": corpus.StatusOK,
		"edge/import-fails":              corpus.StatusLoadError,
		"edge/set-order":                 corpus.StatusOK,
	}
	covered := 0
	for i, s := range suites {
		if w, ok := want[s.Name]; ok && results[i].got.Status != w {
			t.Errorf("%s: status %s, want %s\n%s", s.Name, results[i].got.Status, w, results[i].got.Feedback)
		}
		if why := sameExecution(results[i].got, results[i].want); why != "" {
			t.Errorf("%s: %s\ndirect:\n%s\npytest:\n%s", s.Name, why, results[i].got.Feedback, results[i].want.Feedback)
		}
		if !traced(i) {
			continue
		}
		if why := sameExecution(results[i].gotLines, results[i].wantLines); why != "" {
			t.Errorf("%s with coverage: %s\ndirect:\n%s\npytest:\n%s", s.Name, why, results[i].gotLines.Feedback, results[i].wantLines.Feedback)
		}
		for _, tr := range results[i].gotLines.Tests {
			if len(tr.Lines) > 0 {
				covered++
				break
			}
		}
	}
	if covered < len(suites)/4 {
		t.Errorf("only %d of %d pairs recorded lines with coverage", covered, len(suites))
	}
}

// objectAddress matches the addresses in default reprs, which differ
// between any two runs.
var objectAddress = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// sameExecution says how two runs of one pair differ in what a corpus
// keeps of them other than times and object addresses ("" when they do
// not).
func sameExecution(a, b corpus.Execution) string {
	for _, e := range []*corpus.Execution{&a, &b} {
		e.Feedback = objectAddress.ReplaceAllString(e.Feedback, "0x…")
		e.Tests = append([]corpus.TestResult(nil), e.Tests...)
		for i := range e.Tests {
			e.Tests[i].Message = objectAddress.ReplaceAllString(e.Tests[i].Message, "0x…")
		}
	}
	switch {
	case a.Status != b.Status:
		return fmt.Sprintf("status %s vs %s", a.Status, b.Status)
	case len(a.Tests) != len(b.Tests):
		return fmt.Sprintf("%d vs %d tests", len(a.Tests), len(b.Tests))
	case a.PassRate != b.PassRate:
		return fmt.Sprintf("pass rate %v vs %v", a.PassRate, b.PassRate)
	}
	for i := range a.Tests {
		x, y := a.Tests[i], b.Tests[i]
		if x.Name != y.Name || x.Passed != y.Passed || x.Message != y.Message {
			return fmt.Sprintf("test %d: %q %v %q vs %q %v %q", i, x.Name, x.Passed, x.Message, y.Name, y.Passed, y.Message)
		}
		if !slices.Equal(x.Lines, y.Lines) || (x.Lines == nil) != (y.Lines == nil) {
			return fmt.Sprintf("test %d (%s): lines %v vs %v", i, x.Name, x.Lines, y.Lines)
		}
	}
	if a.Feedback != b.Feedback {
		return "feedback differs"
	}
	return ""
}

// TestDirectRunnerFailsWhatPytestFails: a test that ends in pytest.fail
// (pytest.raises that saw nothing) or another BaseException but a skip, an
// xfail or a stop fails in the direct runner's child, as pytest's call
// phase fails it, with no second child; unittest's skips go back to pytest
// (its unittest plugin makes them skips). pytest.skip and pytest.xfail
// need the harness imported, which the static check stops first.
// TestDirectRunnerMatchesPytest holds both answers to pytest's.
func TestDirectRunnerFailsWhatPytestFails(t *testing.T) {
	edges := map[string]Suite{}
	for _, s := range directEdgeSuites() {
		edges[s.Name] = s
	}
	p := ownPool(t, Options{Workers: 1, Timeout: 60 * time.Second})
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		handBack bool
	}{
		{"edge/raises-saw-nothing", false},
		{"edge/system-exit-in-test", false},
		{"edge/base-exception-in-test", false},
		{"edge/generator-exit-in-test", false},
		{"edge/unittest-skip-in-test", true},
		{"edge/unittest-skip-subclass", true},
	} {
		s, ok := edges[c.name]
		if !ok {
			t.Fatalf("no edge suite %s", c.name)
		}
		back := p.fallbacks.Load()
		ex, err := p.Run(ctx, s.Program, s.Tests)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if handed := p.fallbacks.Load() > back; handed != c.handBack {
			t.Errorf("%s: handed back to pytest %v, want %v (status %s)\n%s", c.name, handed, c.handBack, ex.Status, ex.Feedback)
		}
		if ex.Status != corpus.StatusOK || len(ex.Tests) == 0 {
			t.Errorf("%s: status %s, %d tests\n%s", c.name, ex.Status, len(ex.Tests), ex.Feedback)
		}
		for _, tr := range ex.Tests {
			if tr.Passed != strings.HasSuffix(tr.Name, "_ok") {
				t.Errorf("%s: %s passed %v\n%s", c.name, tr.Name, tr.Passed, ex.Feedback)
			}
		}
	}
}

// TestDirectRunnerSetsUpFixtures: the fixture pairs whose names end in
// "-direct" run in the direct runner's child alone; those whose fixture
// fails are handed back to pytest. TestDirectRunnerMatchesPytest holds
// both answers to pytest's.
func TestDirectRunnerSetsUpFixtures(t *testing.T) {
	p := ownPool(t, Options{Workers: 1, Timeout: 60 * time.Second})
	ctx := context.Background()
	for _, s := range directFixtureSuites() {
		back, ran := p.fallbacks.Load(), p.direct.Load()
		ex, err := p.Run(ctx, s.Program, s.Tests)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		handed, direct := p.fallbacks.Load() > back, p.direct.Load() > ran
		if want := !strings.HasSuffix(s.Name, "-direct"); handed != want || direct == want {
			t.Errorf("%s: direct %v, handed back %v (status %s)\n%s", s.Name, direct, handed, ex.Status, ex.Feedback)
		}
		if ex.Status != corpus.StatusOK || len(ex.Tests) == 0 {
			t.Errorf("%s: status %s, %d tests\n%s", s.Name, ex.Status, len(ex.Tests), ex.Feedback)
		}
	}
}
