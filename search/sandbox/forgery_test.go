package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"triage/corpus"
)

// forgeryTests is the test file the forgeries attack: add(a, b) must add.
// Every forged program's own add subtracts, so an honest verdict fails all
// three tests.
const forgeryTests = `from solution import add
import math


def test_add():
    assert add(1, 2) == 3


def test_add_negative():
    assert add(-1, 1) == 0


def test_close():
    assert math.isclose(add(0.1, 0.2), 0.3)
`

// equalityTests has only == assertions (an object equal to everything
// passes it in any harness).
const equalityTests = `from solution import add


def test_add():
    assert add(1, 2) == 3


def test_add_negative():
    assert add(-1, 1) == 0
`

// approxTests compares with pytest.approx.
const approxTests = `import pytest
from solution import add


def test_add():
    assert add(1, 2) == 3


def test_float():
    assert add(0.1, 0.2) == pytest.approx(0.3)
`

const forgeryReference = "def add(a, b):\n    return a + b\n"

// forgery is one program that tries to be recorded as a fix without being
// one. Each runs twice: on a full pool, and on a pool whose judge runs
// every file with pytest (the direct runner off), the harness the
// forgeries of pytest's own machinery target. None is ever solved: what it
// does to pytest, the harness or the values it returns happens in its own
// process, and the test file's verdicts are the judge's.
type forgery struct {
	name    string
	program string
	tests   string // default forgeryTests
	// allowed: its statuses (default notSolved).
	allowed []corpus.Status
}

// notSolved are the statuses of a program that fails some test.
var notSolved = []corpus.Status{corpus.StatusOK, corpus.StatusTamper, corpus.StatusLoadError, corpus.StatusCrash,
	corpus.StatusTimeout}

// pipeForger writes forged results to every pipe it can find (through
// /proc/self/fd, else by trying every descriptor) in the old unsigned
// format and in the signed one with a made-up signature, for the real tests
// and for a made-up one.
const pipeForger = `import os, stat, json

def _pipes():
    fds = []
    try:
        fds = [int(x) for x in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    out = []
    for fd in fds:
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                out.append(fd)
        except OSError:
            pass
    return out

def _forge():
    names = ["test_solution.py::test_add", "test_solution.py::test_add_negative", "test_solution.py::test_close", "test_solution.py::test_made_up"]
    lines = [{"t": "collected", "names": names}]
    lines += [{"t": "test", "name": n, "passed": True, "dur_ms": 1.0, "msg": "", "text": ""} for n in names]
    lines += [{"t": "done", "exit": 0, "output_limit": False}]
    data = b""
    for i, ev in enumerate(lines):
        body = json.dumps(ev).encode()
        data += body + b"\n"
        data += b"0" * 64 + b" " + body + b"\n"
    for fd in _pipes():
        try:
            os.write(fd, data)
        except OSError:
            pass
    return _pipes()
`

func forgeries(tmpTaskDir string) []forgery {
	return []forgery{
		// The seven forgeries of issue 12.
		{name: "patches Function.runtest", program: "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n\ndef add(a, b):\n    return a - b\n"},
		{name: "wraps call_and_report", program: `import _pytest.runner as runner

_orig = runner.call_and_report

def call_and_report(item, when, log=True, **kwds):
    rep = _orig(item, when, log=False, **kwds)
    rep.outcome = "passed"
    rep.longrepr = None
    if log:
        item.ihook.pytest_runtest_logreport(report=rep)
    return rep

runner.call_and_report = call_and_report

def add(a, b):
    return a - b
`},
		{name: "walks frames to the collector", program: `import sys

def _find():
    f = sys._getframe()
    while f is not None:
        for v in list(f.f_locals.values()):
            if type(v).__name__ == "Collector" or hasattr(v, "pytest_runtest_logreport"):
                return v
        f = f.f_back
    return None

_c = _find()
if _c is not None:
    _orig = _c.emit
    def _emit(obj):
        if obj.get("t") == "test":
            obj["passed"] = True
        _orig(obj)
    _c.emit = _emit

def add(a, b):
    return a - b
`},
		{name: "walks frames to config and wraps makereport", program: `import sys
import pytest

def _config():
    f = sys._getframe()
    while f is not None:
        c = f.f_locals.get("config")
        if c is not None and hasattr(c, "pluginmanager"):
            return c
        f = f.f_back
    return None

class _Pass:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        out = yield
        rep = out.get_result()
        rep.outcome = "passed"
        rep.longrepr = None

_cfg = _config()
if _cfg is not None:
    _cfg.pluginmanager.register(_Pass(), "pass-all")

def add(a, b):
    return a - b
`},
		{name: "forges lines on the result pipe and exits", program: pipeForger + "\n_forge()\nos._exit(0)\n\ndef add(a, b):\n    return a - b\n"},
		{name: "forges lines on the result pipe and closes it", program: pipeForger + "\nfor _fd in _forge():\n    os.close(_fd)\n\ndef add(a, b):\n    return a - b\n"},
		{name: "executes the reference from the host's task files", program: fmt.Sprintf(`import glob, json, os

def _reference():
    me = open("test_solution.py").read()
    for root in [%q, "/tmp", "/work", os.path.expanduser("~")]:
        for path in glob.glob(os.path.join(root, "**", "*.jsonl"), recursive=True):
            try:
                for line in open(path):
                    t = json.loads(line)
                    if t.get("test") == me:
                        return t["solution"]
            except (OSError, ValueError):
                pass
    return None

_src = _reference()
if _src:
    exec(_src)
else:
    def add(a, b):
        return a - b
`, tmpTaskDir)},
		// Our own.
		{name: "gets frames through sys.settrace", program: `import sys

def _tracer(frame, event, arg):
    f = frame
    while f is not None:
        for v in list(f.f_locals.values()):
            if hasattr(v, "pytest_runtest_logreport") and hasattr(v, "emit"):
                orig = v.emit
                def emit(obj, orig=orig):
                    if obj.get("t") == "test":
                        obj["passed"] = True
                    orig(obj)
                v.emit = emit
                sys.settrace(None)
                return None
        f = f.f_back
    return _tracer

sys.settrace(_tracer)

def add(a, b):
    return a - b
`},
		{name: "gets frames through a signal handler", program: `import os, signal

_frames = []
signal.signal(signal.SIGUSR1, lambda signum, frame: _frames.append(frame))
os.kill(os.getpid(), signal.SIGUSR1)
f = _frames[0] if _frames else None
while f is not None:
    for v in list(f.f_locals.values()):
        if hasattr(v, "pytest_runtest_logreport") and hasattr(v, "emit"):
            v.pytest_runtest_logreport = lambda report: None
    f = f.f_back

def add(a, b):
    return a - b
`},
		{name: "launders sys._getframe through a finalizer", program: `import operator, sys, weakref

class _X:
    pass

_out = []
_x = _X()
weakref.finalize(_x, _out.extend, map(operator.call, [sys._getframe]))
del _x
f = _out[0] if _out else None
while f is not None:
    for v in list(f.f_locals.values()):
        if hasattr(v, "pytest_runtest_logreport") and hasattr(v, "emit"):
            v.pytest_runtest_logreport = lambda report: None
    f = f.f_back

def add(a, b):
    return a - b
`},
		{name: "forges results from an atexit hook", program: pipeForger + "\nimport atexit\natexit.register(_forge)\n\ndef add(a, b):\n    return a - b\n"},
		{name: "replaces builtins.__import__", program: `import builtins, threading, time, types

_real = builtins.__import__

def _blank(g):
    def loop():
        for _ in range(4000):
            for k, v in list(g.items()):
                if k.startswith("test_") and callable(v) and getattr(v, "__name__", "") != "_noop":
                    def _noop(*a, **kw):
                        return None
                    g[k] = _noop
            time.sleep(0.0002)
    threading.Thread(target=loop, daemon=True).start()

def _import(name, globals=None, locals=None, fromlist=(), level=0):
    mod = _real(name, globals, locals, fromlist, level)
    if globals is not None and globals.get("__name__") == "test_solution":
        _blank(globals)
        if name == "math":
            fake = types.ModuleType("math")
            fake.__dict__.update(mod.__dict__)
            fake.isclose = lambda *a, **k: True
            return fake
    return mod

builtins.__import__ = _import

def add(a, b):
    return a - b
`},
		{name: "patches math.isclose in the shared module", program: "import math\nmath.isclose = lambda *a, **k: True\n\ndef add(a, b):\n    return a - b\n",
			tests: "from solution import add\nimport math\n\ndef test_close():\n    assert math.isclose(add(0.1, 0.2), 0.3)\n"},
		{name: "patches pytest.approx's comparison", program: `import sys

_api = sys.modules.get("_pytest.python_api")
if _api is not None:
    _api.ApproxScalar.__eq__ = lambda self, actual: True

def add(a, b):
    return a + b if isinstance(a, int) else a - b
`, tests: approxTests},
		{name: "patches the harness through sys.modules['__main__']", program: `import sys

_main = sys.modules.get("__main__")
_C = getattr(_main, "Collector", None)
if _C is not None:
    _orig = _C.pytest_runtest_logreport
    def _logreport(self, report):
        report.outcome = "passed"
        report.longrepr = None
        return _orig(self, report)
    _C.pytest_runtest_logreport = _logreport

def add(a, b):
    return a - b
`},
		{name: "reaches config through sys.meta_path", program: `import sys

_cfg = None
for _f in sys.meta_path:
    _cfg = getattr(_f, "config", None) or _cfg

class _Pass:
    def pytest_runtest_logreport(self, report):
        report.outcome = "passed"
        report.longrepr = None

if _cfg is not None:
    _cfg.pluginmanager.register(_Pass(), "pass-all")

def add(a, b):
    return a - b
`,
		// The direct runner calls no hook the plugin could answer: the
		// full pool records an honest failure.
		},
		{name: "answers from the test file on disk", program: `import re

_table = {}
try:
    _src = open("test_" + "solution.py").read()
    for m in re.finditer(r"add\((-?[\d.]+), (-?[\d.]+)\) == (-?[\d.]+)", _src):
        _table[(float(m[1]), float(m[2]))] = float(m[3])
except OSError:
    pass

def add(a, b):
    got = _table.get((float(a), float(b)))
    return got if got is not None else a - b
`, tests: equalityTests},
		{name: "rewrites a small int with ctypes", program: `import ctypes

ctypes.c_ssize_t.from_address(id(-1) + 24).value = 3

def add(a, b):
    return a - b
`, tests: equalityTests},
		{name: "adds passing tests through the test file's star import", program: "def add(a, b):\n    return a - b\n\ndef test_extra_1():\n    pass\n\ndef test_extra_2():\n    pass\n",
			tests: "from solution import *\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
		{name: "returns unittest.mock.ANY", program: "from unittest.mock import ANY\n\ndef add(a, b):\n    return ANY\n",
			tests: equalityTests},
		{name: "returns an object whose __eq__ is always true", program: `class _Anything(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__

def add(a, b):
    return _Anything(a - b)
`, tests: equalityTests},
		{name: "replaces the comparison checks in the builtins", program: `import builtins

class _R:
    def __eq__(self, other):
        return isinstance(other, int)

setattr(builtins, "@" + "triage_compare", lambda op, a, b: True)

def add(a, b):
    return _R()
`, tests: equalityTests},
		{name: "replaces the comparison checks through the test file's star import", program: `class _R:
    def __eq__(self, other):
        return isinstance(other, int)

globals()["@" + "triage_compare"] = lambda op, a, b: True

def add(a, b):
    return _R()
`, tests: "from solution import *\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
		// A program that does not import, so that pytest imports the test
		// file after it in the same child: first it plants the byte code of
		// passing tests where pytest's import looks for the test file's
		// rewritten pyc, with the header of the real file. The direct
		// runner's child hands pytest the worker's own code instead; a
		// pytest run's pyc is the worker's, which the program cannot write.
		{name: "plants the test file's pyc and fails its import", program: `import importlib as _imp
import os, sys
from importlib import _bootstrap_external as _be

_FORGED = "def test_add():\n    pass\n\n\ndef test_add_negative():\n    pass\n\n\ndef test_close():\n    pass\n"
_name = "test" + "_solution"
_st = os.stat(_name + ".py")
_code = compile(_FORGED, os.path.abspath(_name + ".py"), "exec")
_tail = ".%s-pytest-%s.pyc" % (sys.implementation.cache_tag, _imp.import_module("py" + "test").__version__)
os.makedirs("__pycache__", exist_ok=True)
with open(os.path.join("__pycache__", _name + _tail), "wb") as _f:
    _f.write(_be._code_to_timestamp_pyc(_code, _st.st_mtime, _st.st_size))
raise ImportError("the tests are planted")


def add(a, b):
    return a - b
`, allowed: []corpus.Status{corpus.StatusLoadError}},
	}
}

// TestAdversarialForgeries runs every forgery through a full pool and
// through one without the static check. None may be recorded as a fix
// (values that lie about equality included: the comparison checks stop
// them without the static check), and
// none may leave a process or a file behind.
func TestAdversarialForgeries(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile programs are skipped in -short mode")
	}
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	skipUnlessFullSandbox(t)
	taskDir := t.TempDir()
	task := map[string]string{"task_id": "forgery", "solution": forgeryReference, "test": forgeryTests}
	line, _ := json.Marshal(task)
	if err := os.WriteFile(filepath.Join(taskDir, "tasks.jsonl"), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	const limit = 5 * time.Second
	full, err := New(Options{Workers: 1, Timeout: limit, MemoryMB: 512, MaxProcs: 32, TmpfsMB: 32, UIDBase: advUIDBase + 1})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	// The second pool runs every file with pytest (the direct runner off),
	// so the forgeries of pytest's own machinery meet the harness they
	// target; the full pool runs the plain forgery test files directly.
	bare, err := New(Options{Workers: 1, Timeout: limit, MemoryMB: 512, MaxProcs: 32, TmpfsMB: 32, UIDBase: advUIDBase + 2,
		disabled: layerSet{layerDirect: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	for _, need := range []string{"mount-allowlist", "seccomp", "two-process", "fork-server", "reference-ids", "uid-drop"} {
		if !slices.Contains(full.Protections(), need) {
			t.Skipf("protection %s unavailable here (have %v)", need, full.Protections())
		}
	}
	ctx := context.Background()
	// The forgeries' test files pass with the reference on both pools.
	for _, tests := range []string{forgeryTests, equalityTests, approxTests} {
		for _, p := range []*Pool{full, bare} {
			ex, err := p.Run(ctx, forgeryReference, tests)
			if err != nil || !ex.Solved() {
				t.Fatalf("reference not solved: %v %s\n%s", err, ex.Status, ex.Feedback)
			}
		}
	}
	for _, f := range forgeries(taskDir) {
		tests := f.tests
		if tests == "" {
			tests = forgeryTests
		}
		allowed := f.allowed
		if allowed == nil {
			allowed = notSolved
		}
		for _, side := range []struct {
			label  string
			pool   *Pool
			uid    int
			want   []corpus.Status
			solved bool
		}{{"full", full, advUIDBase + 1, allowed, false}, {"pytest's run", bare, advUIDBase + 2, allowed, false}} {
			t.Run("Adversarial "+f.name+" ("+side.label+")", func(t *testing.T) {
				rctx, cancel := context.WithTimeout(ctx, 2*limit+10*time.Second)
				defer cancel()
				ex, err := side.pool.Run(rctx, f.program, tests)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if !slices.Contains(side.want, ex.Status) {
					t.Errorf("status %s, want one of %v; feedback:\n%s", ex.Status, side.want, ex.Feedback)
				}
				if ex.Solved() != side.solved {
					t.Errorf("solved %v, want %v; feedback:\n%s", ex.Solved(), side.solved, ex.Feedback)
				}
				if ex.Status == corpus.StatusTamper && (ex.PassRate != 0 || ex.FailedFrac != 1 || !strings.HasPrefix(ex.Feedback, "TAMPER:")) {
					t.Errorf("tamper run: pass rate %v, failed frac %v, feedback %q", ex.PassRate, ex.FailedFrac, ex.Feedback)
				}
				t.Logf("%s: %s", ex.Status, firstLines(ex.Feedback, 3))
				s := side.pool.all[0]
				checkOnlyTheWorker(t, s)
				if left := processesOfUID(runHostUID(s, side.uid)); len(left) > 0 {
					t.Errorf("processes left as uid %d: %v", runHostUID(s, side.uid), left)
				}
				entries, _ := os.ReadDir(taskDir)
				if len(entries) != 1 {
					t.Errorf("task folder changed: %v", entries)
				}
				next, err := side.pool.Run(rctx, forgeryReference, tests)
				if err != nil || !next.Solved() {
					t.Fatalf("next run: err %v, status %s, feedback:\n%s", err, next.Status, next.Feedback)
				}
			})
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
