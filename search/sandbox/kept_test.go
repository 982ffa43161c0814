package sandbox

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"triage/corpus"
)

// keptPool is a one-worker pool whose fork server keeps a direct run's
// judge for the next run of its test file, or a skip where it cannot (no
// fork server, no uid of the program's own).
func keptPool(t *testing.T) *Pool {
	t.Helper()
	p, _ := forkServerPool(t, Options{Timeout: 20 * time.Second})
	if !slices.Contains(p.Protections(), layerKeptJudge) {
		t.Skipf("no kept judge here (protections %v)", p.Protections())
	}
	return p
}

// verdictText is an Execution's status, tests and feedback as text, with
// its timings left out and addresses masked.
func verdictText(ex corpus.Execution) string {
	ex.DurationMS, ex.CPUMS, ex.ProgramCPUMS, ex.ProgramOwnCPUMS = 0, 0, 0, 0
	ex.Tests = append([]corpus.TestResult(nil), ex.Tests...)
	for i := range ex.Tests {
		ex.Tests[i].DurationMS = 0
	}
	return addresses.ReplaceAllString(fmt.Sprintf("%+v", ex), "0x")
}

// TestKeptJudgeParity: every suite of the benchmark set (references,
// mutants, crashing programs), run twice over in order, gets the same
// statuses, tests and feedback from a pool that keeps judges as from one
// that forks a fresh judge for every run; most runs went to a kept judge.
func TestKeptJudgeParity(t *testing.T) {
	suites, err := BenchSuites()
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		suites = suites[:40]
	}
	kept := keptPool(t)
	fresh := ownPool(t, Options{Workers: 1, Timeout: 20 * time.Second, disabled: layerSet{layerKeptJudge: true}})
	for rep := 0; rep < 2; rep++ {
		for _, s := range suites {
			a, err := kept.Run(context.Background(), s.Program, s.Tests)
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			b, err := fresh.Run(context.Background(), s.Program, s.Tests)
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			if x, y := verdictText(a), verdictText(b); x != y {
				t.Errorf("%s (round %d):\nkept  %s\nfresh %s", s.Name, rep, x, y)
			}
		}
	}
	n, runs := kept.keptRuns.Load(), 2*len(suites)
	if n < int64(runs)/2 {
		t.Errorf("%d of %d runs went to a kept judge, want at least half", n, runs)
	}
	if m := fresh.keptRuns.Load(); m != 0 {
		t.Errorf("%d runs went to a kept judge with the layer off", m)
	}
	t.Logf("%d of %d runs went to a kept judge", n, runs)
}

// TestKeptJudgeEndsWhatAProgramLeft: a program that leaves processes
// behind, one of them sending SIGKILL to every process it may, costs the
// next program nothing: the kept judge ends every process of the
// program's uid before its verdict, and the next run of the same test file
// (its judge kept) passes.
func TestKeptJudgeEndsWhatAProgramLeft(t *testing.T) {
	p := keptPool(t)
	tests := "from solution import f\n\ndef test_f():\n    assert f() == 1\n\ndef test_g():\n    assert f() + 1 == 2\n"
	honest := "def f():\n    return 1\n"
	// The killer's child lets its parent end the run (it holds none of its
	// descriptors), then sends SIGKILL to all it may: the next program.
	killer := "import os, time\nparent = os.getpid()\nif os.fork() == 0:\n    os.closerange(0, 1024)\n    os.setsid()\n" +
		"    while os.getppid() == parent:\n        time.sleep(0.0005)\n    while True:\n        try:\n            os.kill(-1, 9)\n" +
		"        except OSError:\n            pass\n        time.sleep(0.0005)\n\ndef f():\n    return 1\n"
	sleeper := "import os, time\nif os.fork() == 0:\n    time.sleep(600)\n\ndef f():\n    return 1\n"
	for i, program := range []string{honest, killer, honest, sleeper, honest, killer, honest} {
		before := p.keptRuns.Load()
		ex, err := p.Run(context.Background(), program, tests)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !ex.Solved() || ex.Status != corpus.StatusOK {
			t.Errorf("run %d: %s %s", i, ex.Status, firstLines(ex.Feedback, 4))
		}
		if i > 0 && program == honest && p.keptRuns.Load() == before {
			t.Logf("run %d: a fresh judge (the kept one did not survive the run before)", i)
		}
	}
	if p.keptRuns.Load() == 0 {
		t.Errorf("no run went to a kept judge")
	}
	if s := p.all[0]; s.cg != nil {
		if procs, err := s.cg.procs(); err != nil || !onlyTheWorker(s, procs) {
			t.Errorf("cgroup procs %v (err %v): a run left a process", procs, err)
		}
	}
}

// TestKeptJudgeStartsEachRunAfresh: a test file whose test changes the
// judge's process (the recursion limit, sys.path and sys.modules, the
// folder, warning filters, decimal's context, the root logger, the
// environment, the builtins, gc, a standard stream, an attribute of a
// module it imports) and checks first that none of it is changed passes in
// every run a kept judge takes, as it does in a fresh judge; and a handle
// of an earlier run's program, kept where nothing is put back (a logger),
// is no object of the next program.
func TestKeptJudgeStartsEachRunAfresh(t *testing.T) {
	p := keptPool(t)
	tests := `import builtins, decimal, gc, io, json, logging, os, sys, textwrap, warnings
import pytest
from solution import f

COUNT = []


def test_fresh():
    assert f() == 1
    assert COUNT == []
    assert sys.getrecursionlimit() != 4321
    assert "/nowhere" not in sys.path
    assert os.getcwd() != "/"
    assert not any(a == "error" and c is UserWarning for a, _, c, _, _ in warnings.filters)
    assert decimal.getcontext().prec == 28
    assert logging.getLogger().level != logging.DEBUG and logging.root.manager.disable == 0
    assert "made_by_the_test" not in sys.modules and sys.modules["json"] is json
    assert "TRIAGE_SET_BY_TEST" not in os.environ
    assert not hasattr(builtins, "made_by_the_test")
    assert gc.isenabled()
    assert sys.get_int_max_str_digits() != 5000
    assert not isinstance(sys.stderr, io.StringIO)
    COUNT.append(1)
    sys.setrecursionlimit(4321)
    sys.path.append("/nowhere")
    os.chdir("/")
    warnings.simplefilter("error", UserWarning)
    decimal.getcontext().prec = 5
    logging.getLogger().setLevel(logging.DEBUG)
    logging.disable(logging.INFO)
    sys.modules["made_by_the_test"] = sys
    sys.modules["json"] = sys
    os.environ["TRIAGE_SET_BY_TEST"] = "1"
    builtins.made_by_the_test = True
    gc.disable()
    sys.set_int_max_str_digits(5000)
    sys.stderr = io.StringIO()


def test_module_attribute():
    assert not hasattr(textwrap, "_triage_seen")
    textwrap._triage_seen = True


def test_stale_handle():
    kept = logging.getLogger("triage.kept")
    old = getattr(kept, "_triage_handle", None)
    kept._triage_handle = f
    if old is not None:
        with pytest.raises(LookupError):
            old()


def test_warning_once():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("default")
        warnings.warn("once", DeprecationWarning)
    assert len(w) == 1
`
	for i := 0; i < 4; i++ {
		ex, err := p.Run(context.Background(), "def f():\n    return 1\n", tests)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !ex.Solved() {
			t.Errorf("run %d: %s %s", i, ex.Status, firstLines(ex.Feedback, 12))
		}
	}
	if p.keptRuns.Load() < 3 {
		t.Errorf("%d runs went to a kept judge, want 3", p.keptRuns.Load())
	}
}

// TestAcquirePrefersTheSlotOfTheSameTestFile: a run takes the free slot
// whose last run had its test file (its judge may be kept there), any
// free slot otherwise, and the slots it passed over stay free.
func TestAcquirePrefersTheSlotOfTheSameTestFile(t *testing.T) {
	a, b, c := [32]byte{1}, [32]byte{2}, [32]byte{3}
	for _, tc := range []struct {
		name string
		free [][32]byte
		want [32]byte
		idx  int // the slot taken
	}{
		{"first matches", [][32]byte{a, b, c}, a, 0},
		{"a later one matches", [][32]byte{a, b, c}, c, 2},
		{"none matches", [][32]byte{a, b}, c, 0},
		{"one slot", [][32]byte{b}, a, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Pool{slots: make(chan *slot, len(tc.free))}
			for i, k := range tc.free {
				p.slots <- &slot{idx: i, lastTests: k}
			}
			s, err := p.acquire(context.Background(), tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if s.idx != tc.idx {
				t.Errorf("took slot %d, want %d", s.idx, tc.idx)
			}
			if n := len(p.slots); n != len(tc.free)-1 {
				t.Errorf("%d slots left free, want %d", n, len(tc.free)-1)
			}
			for len(p.slots) > 0 {
				if o := <-p.slots; o == s {
					t.Errorf("the taken slot is still free")
				}
			}
		})
	}
}

// TestKeptJudgeNotForReferences: a reference's measured runs (SplitCPU)
// each get a fresh judge, since a task's limits scale with what a fresh
// judge costs; the plain runs of the same file after them keep theirs.
func TestKeptJudgeNotForReferences(t *testing.T) {
	p := keptPool(t)
	tests := "from solution import f\n\ndef test_f():\n    assert f() == 1\n"
	program := "def f():\n    return 1\n"
	before := p.keptRuns.Load()
	for i := 0; i < 3; i++ {
		ex, err := p.RunWith(context.Background(), program, tests, corpus.RunOptions{SplitCPU: true, CPU: 5 * time.Second})
		if err != nil || !ex.Solved() {
			t.Fatalf("reference run %d: %v %s", i, err, ex.Status)
		}
	}
	if n := p.keptRuns.Load() - before; n != 0 {
		t.Errorf("%d reference runs went to a kept judge, want 0", n)
	}
	for i := 0; i < 3; i++ {
		if _, err := p.Run(context.Background(), program, tests); err != nil {
			t.Fatal(err)
		}
	}
	if n := p.keptRuns.Load() - before; n != 2 {
		t.Errorf("%d of the 3 plain runs went to a kept judge, want 2", n)
	}
}
