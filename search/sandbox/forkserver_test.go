package sandbox

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"triage/corpus"
)

// forkServerPool is a one-worker pool whose worker forks through a fork
// server, or a skip where it cannot (no pid namespace or seccomp here).
func forkServerPool(t *testing.T, opts Options) (*Pool, *slot) {
	t.Helper()
	opts.Workers = 1
	p := ownPool(t, opts)
	if _, err := p.Run(context.Background(), "x = 1\n", "def test_x():\n    pass\n"); err != nil {
		t.Fatalf("first run: %v", err)
	}
	s := p.all[0]
	if s.w == nil || !s.w.hello.ForkServer {
		t.Skipf("the worker has no fork server here (protections %v)", p.Protections())
	}
	return p, s
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		if c, err := strconv.Atoi(e.Name()); err == nil && parentPID(c) == pid {
			out = append(out, c)
		}
	}
	return out
}

// TestForkServerLeavesNothing: runs forked through the fork server that
// leave processes behind (a daemon that double-forks into its own session,
// a thread spinning past its test) end with nothing left but the worker
// and its server, and the verdicts are what the program earns.
func TestForkServerLeavesNothing(t *testing.T) {
	p, s := forkServerPool(t, Options{Timeout: 10 * time.Second})
	tests := "from solution import f\n\ndef test_f():\n    assert f() == 1\n\ndef test_g():\n    assert f() + 1 == 2\n"
	// want is the status and solved of a run (an empty status: any).
	cases := []struct {
		name, program string
		want          corpus.Status
		solved        bool
	}{
		{"honest", "def f():\n    return 1\n", corpus.StatusOK, true},
		{"failing", "def f():\n    return 2\n", corpus.StatusOK, false},
		{"daemon", "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(600)\n\ndef f():\n    return 1\n", corpus.StatusOK, true},
		{"spinning thread", "import threading\n\ndef spin():\n    while True:\n        pass\n\nthreading.Thread(target=spin, daemon=True).start()\n\ndef f():\n    return 1\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ex, err := p.Run(context.Background(), c.program, tests)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if c.want != "" && (ex.Status != c.want || ex.Solved() != c.solved) {
				t.Errorf("solved %v, want %v: %s %s", ex.Solved(), c.solved, ex.Status, firstLines(ex.Feedback, 3))
			}
			if s.cg != nil {
				if procs, err := s.cg.procs(); err != nil || !onlyTheWorker(s, procs) {
					t.Errorf("cgroup procs %v (err %v), want the worker %d and its fork server", procs, err, s.w.cmd.Process.Pid)
				}
			}
			if kids := childrenOf(s.w.cmd.Process.Pid); len(kids) != 1 {
				t.Errorf("the worker's children %v, want its fork server alone", kids)
			} else if grand := childrenOf(kids[0]); len(grand) > 1 || len(grand) == 1 && procUID(grand[0]) != procUID(kids[0]) {
				t.Errorf("the fork server's children %v after the run, want none but a judge it keeps (the server's uid)", grand)
			}
		})
	}
}

// TestForkServerLossIsSurvived: a worker whose fork server dies (killed
// from outside here; an OOM kill would do the same) ends its use of it,
// forks its runs itself from then on, and gives the same verdicts.
func TestForkServerLossIsSurvived(t *testing.T) {
	p, s := forkServerPool(t, Options{Timeout: 10 * time.Second})
	tests := "from solution import f\n\ndef test_f():\n    assert f() == 1\n"
	run := func(program string) corpus.Execution {
		t.Helper()
		ex, err := p.Run(context.Background(), program, tests)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return ex
	}
	kids := childrenOf(s.w.cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("the worker's children %v, want its fork server alone", kids)
	}
	if err := syscall.Kill(kids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if ex := run("def f():\n    return 1\n"); !ex.Solved() {
			t.Errorf("run %d after the server's loss: %s %s", i, ex.Status, firstLines(ex.Feedback, 3))
		}
		if ex := run("def f():\n    return 0\n"); ex.Solved() || ex.Status != corpus.StatusOK {
			t.Errorf("failing run %d after the server's loss: %s solved %v", i, ex.Status, ex.Solved())
		}
	}
	if kids := childrenOf(s.w.cmd.Process.Pid); len(kids) != 0 {
		t.Errorf("the worker's children %v after its server's loss, want none", kids)
	}
}

// addresses masks object addresses, which differ between any two runs.
var addresses = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// TestForkServerParity: the bench set's pairs give the same status, pass
// rate, per-test verdicts and feedback (addresses aside) with the fork
// server as with the worker forking its children itself, with and
// without coverage.
func TestForkServerParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bench set twice")
	}
	suites, err := BenchSuites()
	if err != nil {
		t.Fatal(err)
	}
	for _, coverage := range []bool{false, true} {
		opts := Options{Timeout: 20 * time.Second, Coverage: coverage}
		with, _ := forkServerPool(t, opts)
		opts.disabled = layerSet{layerForkServer: true}
		without := ownPool(t, opts)
		for i, su := range suites {
			if i%2 == 1 && coverage {
				continue
			}
			a, err := with.Run(context.Background(), su.Program, su.Tests)
			if err != nil {
				t.Fatalf("%s: %v", su.Name, err)
			}
			b, err := without.Run(context.Background(), su.Program, su.Tests)
			if err != nil {
				t.Fatalf("%s: %v", su.Name, err)
			}
			if same, why := SameVerdicts(a, b); !same || a.Status != b.Status || a.PassRate != b.PassRate {
				t.Errorf("%s (coverage %v): %s/%v against %s/%v: %s", su.Name, coverage, a.Status, a.PassRate, b.Status, b.PassRate, why)
			}
			if fa, fb := addresses.ReplaceAllString(a.Feedback, "0x"), addresses.ReplaceAllString(b.Feedback, "0x"); fa != fb {
				t.Errorf("%s (coverage %v): feedback differs:\n%s\n---\n%s", su.Name, coverage, fa, fb)
			}
		}
		if s := without.all[0]; s.w != nil && s.w.hello.ForkServer {
			t.Fatal("the pool with the fork server off has one")
		}
	}
}

// TestForkServerCodeCache: more test files than the server keeps code for
// (SERVER_CODES, 64), one of them used between all the others: every run
// passes, the files dropped from the server's cache are sent again when
// they come back, and the worker keeps the same server throughout (a cache
// and mirror that drifted would end with the worker forking its runs).
func TestForkServerCodeCache(t *testing.T) {
	p, s := forkServerPool(t, Options{Timeout: 10 * time.Second})
	server := childrenOf(s.w.cmd.Process.Pid)
	if len(server) != 1 {
		t.Fatalf("the worker's children %v, want its fork server alone", server)
	}
	program := "def f(x):\n    return x + 1\n"
	file := func(i int) string {
		return fmt.Sprintf("from solution import f\n\n\ndef test_file_%d():\n    assert f(%d) == %d\n", i, i, i+1)
	}
	const files = 74
	order := make([]int, 0, 3*files)
	for i := range files {
		order = append(order, i, 0)
	}
	for i := range 10 {
		order = append(order, i+1) // dropped from the cache long ago
	}
	for n, i := range order {
		ex, err := p.Run(context.Background(), program, file(i))
		if err != nil {
			t.Fatalf("run %d (file %d): %v", n, i, err)
		}
		if !ex.Solved() {
			t.Fatalf("run %d (file %d): %s\n%s", n, i, ex.Status, firstLines(ex.Feedback, 5))
		}
	}
	if kids := childrenOf(s.w.cmd.Process.Pid); len(kids) != 1 || kids[0] != server[0] {
		t.Errorf("the worker's children %v after %d runs, want its first fork server %v alone", kids, len(order), server)
	}
}

// TestForkServerHugePages: where the kernel makes a process's memory huge
// pages on request (MADV_COLLAPSE, Linux 6.1 on, transparent huge pages
// not switched off), the fork server's memory is 2 MiB pages after its
// start: its hello counts them, and /proc shows them in the server process
// from outside, after runs that forked from it (a child's writes split the
// child's mappings, not the server's).
func TestForkServerHugePages(t *testing.T) {
	if why := noCollapse(); why != "" {
		t.Skip(why)
	}
	p, s := forkServerPool(t, Options{Timeout: 10 * time.Second})
	if n := s.w.hello.ForkServerHugePages; n < 4 {
		t.Fatalf("the fork server made %d huge pages of its memory, want 4 or more", n)
	}
	for i := range 5 {
		ex, err := p.Run(context.Background(), "def f(x):\n    return x + 1\n",
			fmt.Sprintf("from solution import f\n\ndef test_f():\n    assert f(%d) == %d\n", i, i+1))
		if err != nil || !ex.Solved() {
			t.Fatalf("run %d: %v %v", i, err, ex.Status)
		}
	}
	server := childrenOf(s.w.cmd.Process.Pid)
	if len(server) != 1 {
		t.Fatalf("the worker's children %v, want its fork server alone", server)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", server[0]))
	if err != nil {
		t.Skipf("no smaps here: %v", err)
	}
	m := regexp.MustCompile(`(?m)^AnonHugePages:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no AnonHugePages in the server's smaps_rollup:\n%s", b)
	}
	// A judge the server keeps shares its pieces while it lives, so each
	// piece the server's own loop writes is split: 3 of 15 stay whole here
	// (5 without kept judges).
	if kb, _ := strconv.Atoi(string(m[1])); kb < 2*2048 {
		t.Errorf("the fork server has %d kB in huge pages after 5 runs, want 4096 or more", kb)
	}
}

// noCollapse says why this machine cannot make memory huge pages on
// request ("" where it can): a kernel before 6.1, or transparent huge pages
// off or absent.
func noCollapse() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return "uname: " + err.Error()
	}
	var rel []byte
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	var major, minor int
	if _, err := fmt.Sscanf(string(rel), "%d.%d", &major, &minor); err != nil || major < 6 || (major == 6 && minor < 1) {
		return "kernel " + string(rel) + " has no MADV_COLLAPSE"
	}
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || regexp.MustCompile(`\[never\]`).Match(b) {
		return "transparent huge pages are off or absent here"
	}
	return ""
}

// TestForkServerChildrenAsOSFork: the fork server forks a run's processes
// without the interpreter's after-fork hooks (make_fork in forkserver.py),
// so what those hooks gave a child must still hold: `random` seeded anew in
// each run, in the program process and in the judge, and threads the
// program starts (threading's state is the server's single thread's).
func TestForkServerChildrenAsOSFork(t *testing.T) {
	p, _ := forkServerPool(t, Options{Timeout: 10 * time.Second})
	program := "import random\nimport threading\n\n" +
		"def draw():\n    return random.random()\n\n" +
		"def threaded():\n    out = []\n    th = threading.Thread(target=lambda: out.append(threading.current_thread() is not threading.main_thread()))\n" +
		"    th.start()\n    th.join()\n    return out, threading.current_thread() is threading.main_thread(), threading.active_count()\n"
	tests := "import random\nfrom solution import draw, threaded\n\n" +
		"def test_program_draw():\n    assert draw() == -1\n\n" +
		"def test_judge_draw():\n    assert random.random() == -1\n\n" +
		"def test_threads():\n    assert threaded() == ([True], True, 1)\n"
	drawn := regexp.MustCompile(`assert (0\.\d+) == -1`)
	seen := map[string]map[string]bool{"test_program_draw": {}, "test_judge_draw": {}}
	for i := 0; i < 3; i++ {
		ex, err := p.Run(context.Background(), program, tests)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != corpus.StatusOK || len(ex.Tests) != 3 {
			t.Fatalf("run %d: status %s, %d tests:\n%s", i, ex.Status, len(ex.Tests), ex.Feedback)
		}
		for _, tr := range ex.Tests {
			if tr.Name == "test_threads" {
				if !tr.Passed {
					t.Errorf("run %d: a thread of the program's did not run as under os.fork: %s", i, tr.Message)
				}
				continue
			}
			m := drawn.FindStringSubmatch(tr.Message)
			if m == nil {
				t.Fatalf("run %d: %s: no number drawn in %q", i, tr.Name, tr.Message)
			}
			seen[tr.Name][m[1]] = true
		}
	}
	for name, values := range seen {
		if len(values) != 3 {
			t.Errorf("%s: %d different numbers in 3 runs (random not seeded anew in each run's process): %v", name, len(values), values)
		}
	}
}
