package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/limits"
)

// popcount is a task whose reference loops over bits; its mutant that
// shifts by 0 instead of 1 never ends, as mutants of such loops do.
var popcount = corpus.Task{ID: "popcount",
	Solution: "def popcount(n):\n    c = 0\n    while n:\n        c += n & 1\n        n >>= 1\n    return c\n",
	Test: "from solution import popcount\n\ndef test_small():\n    assert popcount(5) == 2\n\n" +
		"def test_zero():\n    assert popcount(0) == 0\n\ndef test_big():\n    assert popcount(2**40 - 1) == 40\n"}

const popcountLoop = "def popcount(n):\n    c = 0\n    while n:\n        c += n & 1\n        n >>= 0\n    return c\n"

// TestAdaptiveLimitStopsLoopingMutant: the task's adaptive limit (from its
// reference's measured time) is below the cap, and the looping mutant run
// under it returns timeout within the limit plus the pool's kill margin
// (outerGrace, then up to a second to clear the worker's cgroup), not after
// the pool's default limit.
func TestAdaptiveLimitStopsLoopingMutant(t *testing.T) {
	p := ownPool(t, Options{Workers: 1}) // the pool's own limit: the default 10 s
	ctx := context.Background()
	lim := limits.DefaultTimeLimits()
	check, err := build.CheckTask(ctx, p, &popcount, build.CheckOptions{ReferenceRuns: 3, Limits: lim, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	if !check.Valid() || check.Limit < lim.Floor || check.Limit >= lim.Cap {
		t.Fatalf("check %+v: want a valid task with a limit in [floor %v, cap %v)", check, lim.Floor, lim.Cap)
	}
	for _, cov := range []bool{false, true} {
		start := time.Now()
		ex, err := p.RunWith(ctx, popcountLoop, popcount.Test, withCoverage(lim.Run(check.Limit), cov))
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != corpus.StatusTimeout || ex.PassRate != 0 {
			t.Errorf("coverage %v: status %s pass rate %v, want timeout", cov, ex.Status, ex.PassRate)
		}
		margin := outerGrace + time.Second
		if took > lim.Backstop(check.Limit)+margin {
			t.Errorf("coverage %v: the looping mutant took %v, more than its limit %v plus the kill margin %v", cov, took, check.Limit, margin)
		}
		t.Logf("coverage %v: reference %.1f ms, limit %v, looping mutant returned %s after %v", cov, check.ReferenceMS, check.Limit, ex.Status, took.Round(time.Millisecond))
	}
	// The reference itself still passes under its limit, with and without
	// coverage, and per-run coverage is what was asked for.
	for _, cov := range []bool{false, true} {
		ex, err := p.RunWith(ctx, popcount.Solution, popcount.Test, withCoverage(lim.Run(check.Limit), cov))
		if err != nil {
			t.Fatal(err)
		}
		if !ex.Solved() {
			t.Errorf("coverage %v: reference %s under its own limit", cov, ex.Status)
		}
		if got := ex.Tests[0].Lines != nil; got != cov {
			t.Errorf("coverage %v: lines %v", cov, ex.Tests[0].Lines)
		}
	}
}

func withCoverage(o corpus.RunOptions, cov bool) corpus.RunOptions {
	o.Coverage = cov
	return o
}

// TestCPULimit: a CPU limit stops a loop in the tests, at import and in a
// thread, with the count at or above the limit; a program that sleeps ends
// at the wall-clock backstop having used little CPU; the reference passes
// and reports its CPU time.
func TestCPULimit(t *testing.T) {
	p := ownPool(t, Options{Workers: 1})
	const limit = 200 * time.Millisecond
	ro := corpus.RunOptions{CPU: limit, Timeout: 20 * time.Second}
	spinImport := "while True:\n    pass\n" + popcount.Solution
	spinThread := "import threading\n\ndef spin():\n    while True:\n        pass\n\n" +
		"for _ in range(3):\n    threading.Thread(target=spin, daemon=True).start()\n\n" +
		"def popcount(n):\n    import time\n    time.sleep(30)\n"
	sleeper := "import time\n\ndef popcount(n):\n    time.sleep(30)\n"
	cases := []struct {
		name, program string
		ro            corpus.RunOptions
		status        corpus.Status
		kind          string // what the feedback says
	}{
		{"reference", popcount.Solution, ro, corpus.StatusOK, ""},
		{"loop in a test", popcountLoop, ro, corpus.StatusTimeout, "of CPU time"},
		{"loop at import", spinImport, ro, corpus.StatusTimeout, "of CPU time"},
		{"threads", spinThread, ro, corpus.StatusTimeout, "of CPU time"},
		{"sleeps", sleeper, corpus.RunOptions{CPU: limit, Timeout: time.Second}, corpus.StatusTimeout, "wall-clock backstop"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := p.RunWith(context.Background(), tc.program, popcount.Test, tc.ro)
			if err != nil {
				t.Fatal(err)
			}
			if ex.Status != tc.status {
				t.Fatalf("status %s, want %s\n%s", ex.Status, tc.status, ex.Feedback)
			}
			if tc.kind != "" && !strings.Contains(ex.Feedback, tc.kind) {
				t.Errorf("feedback %q does not say %q", firstLine(ex.Feedback), tc.kind)
			}
			switch {
			case ex.CPUMS <= 0:
				t.Errorf("cpu %.1f ms: want the run's CPU time", ex.CPUMS)
			case tc.kind == "of CPU time" && ex.CPUMS < float64(limit.Milliseconds()):
				t.Errorf("cpu %.1f ms: a CPU timeout below the limit %v", ex.CPUMS, limit)
			case tc.status == corpus.StatusOK && ex.CPUMS >= float64(limit.Milliseconds()):
				t.Errorf("cpu %.1f ms: a pass at or above the limit %v", ex.CPUMS, limit)
			}
			t.Logf("%s: %s, cpu %.1f ms, wall %.0f ms: %s", tc.name, ex.Status, ex.CPUMS, ex.DurationMS, firstLine(ex.Feedback))
		})
	}
}

// TestSplitLimits: under the default limits, which charge the program's
// import and test bodies apart from pytest's own work, the split is
// measured on the reference's runs (program and harness parts both
// counted); the reference of each task passes under its own limit run
// after run, and a loop in a test body or at import is stopped at the
// limit, counted on the whole run from outside.
func TestSplitLimits(t *testing.T) {
	p := ownPool(t, Options{Workers: 1})
	ctx := context.Background()
	lim := limits.DefaultTimeLimits()
	// A reference whose tests do measurable work of their own, so that the
	// program's part of its count is well above the clock's tick.
	busy := corpus.Task{ID: "busy",
		Solution: "def total(n):\n    return sum(i * i for i in range(n))\n",
		Test:     "from solution import total\n\ndef test_big():\n    assert total(300000) == sum(i * i for i in range(300000))\n"}
	spin := "while True:\n    pass\n"
	for _, task := range []corpus.Task{popcount, busy} {
		check, err := build.CheckTask(ctx, p, &task, build.CheckOptions{ReferenceRuns: 3, Limits: lim})
		if err != nil {
			t.Fatal(err)
		}
		if !check.Valid() || check.HarnessMS <= 0 || check.ProgramMS+check.HarnessMS > check.ReferenceMS+1e-9 {
			t.Fatalf("%s: check %+v: want a valid task with the reference's program and harness parts", task.ID, check)
		}
		if want := lim.LimitOf(limits.RefTime{MS: check.ReferenceMS, ProgramMS: check.ProgramMS}); check.Limit != want {
			t.Errorf("%s: limit %v, want %v from the split", task.ID, check.Limit, want)
		}
		if task.ID == "busy" && check.ProgramMS <= 0 {
			t.Errorf("busy: the program's part %v ms, want > 0", check.ProgramMS)
		}
		// The program process counts its own code's part of the reference's
		// program CPU (the sum in busy's call, most of it there), and the
		// budget charges the rest, its serving, at the serve factor.
		if check.OwnMS <= 0 || check.OwnMS > check.ProgramMS || (task.ID == "busy" && check.OwnMS < check.ProgramMS/2) {
			t.Errorf("%s: own code %.2f ms of the program's %.2f ms", task.ID, check.OwnMS, check.ProgramMS)
		}
		ref := limits.RefTime{MS: check.ReferenceMS, ProgramMS: check.ProgramMS, OwnMS: check.OwnMS}
		if want := lim.ProgramLimitOf(ref); check.ProgramLimit != want {
			t.Errorf("%s: program budget %v, want %v from the own part", task.ID, check.ProgramLimit, want)
		}
		ro := lim.Run(check.Limit)
		for i := 0; i < 5; i++ {
			ex, err := p.RunWith(ctx, task.Solution, task.Test, ro)
			if err != nil {
				t.Fatal(err)
			}
			if !ex.Solved() || ex.ProgramCPUMS != 0 {
				t.Fatalf("%s: reference run %d under its own limit %v: %s, cpu %.1f ms, program %.1f ms (a candidate's run is not split)\n%s",
					task.ID, i, check.Limit, ex.Status, ex.CPUMS, ex.ProgramCPUMS, ex.Feedback)
			}
		}
		name := strings.SplitN(strings.TrimPrefix(task.Solution, "def "), "(", 2)[0]
		loopBody := task.Solution + "\n\ndef " + name + "(*a):\n    while True:\n        pass\n"
		for _, prog := range []struct{ where, program string }{{"test body", loopBody}, {"import", spin + task.Solution}} {
			ex, err := p.RunWith(ctx, prog.program, task.Test, ro)
			if err != nil {
				t.Fatal(err)
			}
			if ex.Status != corpus.StatusTimeout || !strings.Contains(ex.Feedback, "of CPU time") || ex.CPUMS < float64(check.Limit.Milliseconds()) {
				t.Errorf("%s: loop in the %s: %s after %.1f ms of CPU, want a CPU timeout at %v\n%s", task.ID, prog.where, ex.Status, ex.CPUMS, check.Limit, firstLine(ex.Feedback))
			}
		}
		t.Logf("%s: reference %.1f ms (program %.1f, its own code %.1f, harness %.1f), limit %v, program budget %v",
			task.ID, check.ReferenceMS, check.ProgramMS, check.OwnMS, check.HarnessMS, check.Limit, check.ProgramLimit)
	}
}

// TestErrorPathsFitTheLimit: the honest runs that cost pytest more than the
// reference's own (a program that does not compile, whose collection error
// pytest renders with its source; an import that fails) end with their own
// verdict under the task's limit, not a timeout, even while a CPU hog
// started here shares the machine. With the harness allowed three times
// its reference CPU (the first split limits) the error path timed out in 4
// of 30 such checks on a machine loaded further by two corpus builds, and
// `tasks validate` took a root that does not load for a valid one; how
// often this test catches that depends on the machine's load.
func TestErrorPathsFitTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a CPU hog for about half a minute")
	}
	p := testPool(t)
	var hogs []*exec.Cmd
	defer func() {
		for _, h := range hogs {
			_ = h.Process.Kill()
			_ = h.Wait()
		}
	}()
	for range runtime.NumCPU() + 2 {
		hog := exec.Command(DefaultOptions().Python, "-c", "while True: pass")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		hogs = append(hogs, hog)
	}
	test := "from solution import f\n\ndef test_f():\n    assert f() == 1\n"
	task := corpus.Task{ID: "tiny", Solution: "def f():\n    return 1\n", Test: test,
		Roots: []string{"def f(:\n", "import nonexistent_module_for_the_test\n"}}
	for i := range 12 {
		c, err := build.CheckTask(context.Background(), p, &task, build.CheckOptions{ReferenceRuns: 3, Limits: limits.DefaultTimeLimits()})
		if err != nil {
			t.Fatal(err)
		}
		if c.Statuses[corpus.StatusLoadError] != 2 || c.Statuses[corpus.StatusTimeout] != 0 {
			t.Fatalf("check %d under a CPU hog: statuses %v with limit %v (reference %.0f ms, harness %.0f ms), want both roots load_error",
				i, c.Statuses, c.Limit, c.ReferenceMS, c.HarnessMS)
		}
	}
}

// TestProgramBudget: under the default limits a task's runs also have a
// budget for the program's own code (its import and test bodies), below
// the task's whole limit. The reference passes under it run after run; a
// loop in a test body, at import or in threads ends at the budget, well
// before the whole limit, with feedback that says which limit; a program
// that zeroes the count its child publishes is still stopped (by the
// static check, or at the whole limit counted from outside), never passes.
func TestProgramBudget(t *testing.T) {
	p := ownPool(t, Options{Workers: 1})
	ctx := context.Background()
	lim := limits.DefaultTimeLimits()
	check, err := build.CheckTask(ctx, p, &popcount, build.CheckOptions{ReferenceRuns: 3, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	if !check.Valid() || check.ProgramLimit <= 0 || check.ProgramLimit >= check.Limit {
		t.Fatalf("check %+v: want a valid task with a program budget below its limit", check)
	}
	ro := check.RunOptions(lim)
	for i := range 5 {
		ex, err := p.RunWith(ctx, popcount.Solution, popcount.Test, ro)
		if err != nil {
			t.Fatal(err)
		}
		// The program's part may read 0: a few milliseconds, on a CPU clock
		// that may move in scheduler ticks.
		if !ex.Solved() || ex.ProgramCPUMS >= float64(check.ProgramLimit.Milliseconds()) {
			t.Fatalf("reference run %d under budget %v: %s, program %.1f ms\n%s", i, check.ProgramLimit, ex.Status, ex.ProgramCPUMS, ex.Feedback)
		}
	}
	spinThreads := "import threading\n\ndef spin():\n    while True:\n        pass\n\n" +
		"def popcount(n):\n    import time\n    for _ in range(2):\n        threading.Thread(target=spin, daemon=True).start()\n    time.sleep(30)\n"
	for _, tc := range []struct{ name, program string }{
		{"loop in a test", popcountLoop},
		{"loop at import", "while True:\n    pass\n" + popcount.Solution},
		{"loop inside an import in a test", "def popcount(n):\n    import spin_at_import\n"},
		{"threads", spinThreads},
	} {
		program := tc.program
		if strings.Contains(program, "spin_at_import") {
			// A module of the program's own, written next to it at import.
			program = "import os, sys\nopen(os.path.join(os.path.dirname(__file__), 'spin_at_import.py'), 'w').write('while True:\\n    pass\\n')\n" + program
		}
		ex, err := p.RunWith(ctx, program, popcount.Test, ro)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != corpus.StatusTimeout || !strings.Contains(ex.Feedback, "the program's own code") {
			t.Errorf("%s: %s, want a timeout at the program's budget\n%s", tc.name, ex.Status, firstLine(ex.Feedback))
			continue
		}
		if ex.CPUMS >= float64(check.Limit.Milliseconds()) || ex.ProgramCPUMS < float64(check.ProgramLimit.Milliseconds()) {
			t.Errorf("%s: cpu %.1f ms, program %.1f ms: want the program's budget %v reached, the limit %v not",
				tc.name, ex.CPUMS, ex.ProgramCPUMS, check.ProgramLimit, check.Limit)
		}
		t.Logf("%s: stopped after %.1f ms of CPU (program %.1f ms; budget %v, limit %v)", tc.name, ex.CPUMS, ex.ProgramCPUMS, check.ProgramLimit, check.Limit)
	}
	zeroer := "import gc, struct, threading\n\ndef _zero():\n" +
		"    clocks = [o for o in gc.get_objects() if type(o).__name__ == 'ProgramClock']\n" +
		"    while True:\n        for c in clocks:\n            try:\n                struct.pack_into('<qq', c.shared, 0, 0, 0)\n" +
		"            except Exception:\n                pass\n\n" +
		"def popcount(n):\n    threading.Thread(target=_zero, daemon=True).start()\n    while True:\n        pass\n"
	ex, err := p.RunWith(ctx, zeroer, popcount.Test, ro)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case ex.Status == corpus.StatusTamper:
	case ex.Status == corpus.StatusTimeout && ex.CPUMS >= float64(check.ProgramLimit.Milliseconds()):
	default:
		t.Errorf("a program that zeroes its published count: %s after %.1f ms of CPU, want tamper or a timeout\n%s", ex.Status, ex.CPUMS, firstLine(ex.Feedback))
	}
	t.Logf("zeroer: %s after %.1f ms of CPU: %s", ex.Status, ex.CPUMS, firstLine(ex.Feedback))
}

// TestImportErrorTextUnderBudget: counting the program's import on its
// budget wraps solution.py's loader; the text of an error at import is the
// same as without a budget (as pytest shows it after a plain import: no
// frame of importlib or of the harness).
func TestImportErrorTextUnderBudget(t *testing.T) {
	p := ownPool(t, Options{Workers: 1})
	ctx := context.Background()
	program := "def popcount(n):\n    return bin(n).count('1')\n\nraise ValueError('boom at import')\n"
	plain, err := p.RunWith(ctx, program, popcount.Test, corpus.RunOptions{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	budget, err := p.RunWith(ctx, program, popcount.Test, corpus.RunOptions{Timeout: 10 * time.Second, CPU: 5 * time.Second, ProgramCPU: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Status != corpus.StatusLoadError || budget.Status != plain.Status {
		t.Fatalf("statuses %s, %s: want load_error twice", plain.Status, budget.Status)
	}
	if budget.Feedback != plain.Feedback {
		t.Errorf("under a budget the text differs:\n%s\nwithout one:\n%s", budget.Feedback, plain.Feedback)
	}
	for _, bad := range []string{"worker.py", "<frozen importlib", "exec_module"} {
		if strings.Contains(budget.Feedback, bad) {
			t.Errorf("the text shows %q:\n%s", bad, budget.Feedback)
		}
	}
	if !strings.Contains(budget.Feedback, "boom at import") {
		t.Errorf("the text lacks the program's error:\n%s", budget.Feedback)
	}
}

// TestResultLinesBeyondThePipe: the worker reads a run's result pipe when
// it wakes for another reason or on a tick, not on every line; a run whose
// lines fill the pipe (256 KB) twenty times over still ends with every test reported,
// long before its limit (the child waits a tick at most per pipe-full).
func TestResultLinesBeyondThePipe(t *testing.T) {
	p := ownPool(t, Options{Workers: 1, FeedbackChars: 4000})
	program := "def big(i):\n    raise ValueError(str(i) + 'x' * 15000)\n"
	var tests strings.Builder
	tests.WriteString("from solution import big\n\n")
	const n = 300
	for i := range n {
		fmt.Fprintf(&tests, "def test_%d():\n    big(%d)\n\n", i, i)
	}
	start := time.Now()
	ex, err := p.RunWith(context.Background(), program, tests.String(), corpus.RunOptions{Timeout: 60 * time.Second, CPU: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	if ex.Status != corpus.StatusOK || len(ex.Tests) != n {
		t.Fatalf("%s with %d tests reported, want ok with %d\n%s", ex.Status, len(ex.Tests), n, firstLine(ex.Feedback))
	}
	for _, tr := range ex.Tests {
		if tr.Passed {
			t.Fatalf("%s passed", tr.Name)
		}
	}
	t.Logf("%d failing tests of ~16 KB of text each: %v wall, %.0f ms CPU", n, wall, ex.CPUMS)
}
