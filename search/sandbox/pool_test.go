package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
)

// sharedPool is one pool for the semantic tests (starting workers costs
// pytest imports); tests that need other options make their own.
var (
	sharedOnce sync.Once
	sharedP    *Pool
	sharedErr  error
)

func testPool(t *testing.T) *Pool {
	t.Helper()
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skipf("no %s: %v", DefaultOptions().Python, err)
	}
	sharedOnce.Do(func() {
		sharedP, sharedErr = New(Options{Workers: 2, Timeout: 5 * time.Second})
	})
	if sharedErr != nil {
		t.Fatalf("New: %v", sharedErr)
	}
	return sharedP
}

// expectOn returns p's expectation of tests, taken on one of its slots.
func expectOn(t *testing.T, p *Pool, tests string) (expectation, error) {
	t.Helper()
	s := <-p.slots
	defer func() { p.slots <- s }()
	return p.expectationFor(context.Background(), s, tests)
}

// ownPool starts a pool of the test's own with opts, closed when the test
// ends; the test is skipped where the interpreter is missing.
func ownPool(t *testing.T, opts Options) *Pool {
	t.Helper()
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skipf("no %s: %v", DefaultOptions().Python, err)
	}
	p, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedP != nil {
		sharedP.Close()
	}
	os.Exit(code)
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunSemantics(t *testing.T) {
	p := testPool(t)
	tests := readTestdata(t, "kodcode_test.py")
	ref := readTestdata(t, "kodcode_solution.py")
	cases := []struct {
		name      string
		program   string
		tests     string
		status    corpus.Status
		passed    []string // tests that must pass
		failed    []string // tests that must fail
		feedback  []string // substrings of the feedback
		wantTests int
	}{
		{
			name: "reference passes all", program: ref, tests: tests, status: corpus.StatusOK,
			passed:    []string{"test_add[1-2-3]", "test_add[-1-1-0]", "test_mean_approx", "test_pop_empty_raises", "test_fixture_stack", "TestGroup::test_in_class", "test_capsys", "test_tmp_path"},
			wantTests: 9,
		},
		{
			name: "wrong operator fails parametrized cases", program: strings.Replace(ref, "return a + b", "return a - b", 1), tests: tests, status: corpus.StatusOK,
			passed: []string{"test_add[0-0-0]"}, failed: []string{"test_add[1-2-3]", "test_add[-1-1-0]"},
			feedback: []string{"FAILED test_add[1-2-3]", "E   assert -1 == 3", "where -1 = add(1, 2)"}, wantTests: 9,
		},
		{
			name: "approx and raises fail", program: strings.Replace(strings.Replace(ref, "/ len(xs)", "/ (len(xs) + 1)", 1), `raise IndexError("empty")`, "return None", 1), tests: tests, status: corpus.StatusOK,
			failed:   []string{"test_mean_approx", "test_pop_empty_raises"},
			feedback: []string{"approx", "DID NOT RAISE"}, wantTests: 9,
		},
		{
			name: "missing name is a load error", program: "def other():\n    pass\n", tests: tests, status: corpus.StatusLoadError,
			feedback: []string{"ImportError", "cannot import name"}, wantTests: 0,
		},
		{
			name: "syntax error is a load error", program: "def add(a, b)\n    return a + b\n", tests: tests, status: corpus.StatusLoadError,
			feedback: []string{"SyntaxError"}, wantTests: 0,
		},
		{
			name: "exception at import is a load error", program: "raise RuntimeError('boom')\n", tests: tests, status: corpus.StatusLoadError,
			feedback: []string{"RuntimeError: boom"}, wantTests: 0,
		},
		{
			name: "a killed test process is a crash", program: strings.Replace(ref, "return a + b", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)", 1), tests: tests, status: corpus.StatusCrash,
			feedback: []string{"CRASH", "test_add[1-2-3]"}, wantTests: 9,
		},
		{
			name: "infinite loop times out", program: "def add(a, b):\n    while True:\n        pass\n", tests: "from solution import add\ndef test_a():\n    assert add(1, 2) == 3\n", status: corpus.StatusTimeout,
			feedback: []string{"TIMEOUT", "test_a"}, wantTests: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := p.Run(context.Background(), tc.program, tc.tests)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if ex.Status != tc.status {
				t.Fatalf("status %s, want %s; feedback:\n%s", ex.Status, tc.status, ex.Feedback)
			}
			if len(ex.Tests) != tc.wantTests {
				t.Errorf("%d tests, want %d: %+v", len(ex.Tests), tc.wantTests, ex.Tests)
			}
			v := Verdicts(ex)
			for _, n := range tc.passed {
				if passed, ok := v[n]; !ok || !passed {
					t.Errorf("test %q: present %v passed %v, want passed", n, ok, passed)
				}
			}
			for _, n := range tc.failed {
				if passed, ok := v[n]; !ok || passed {
					t.Errorf("test %q: present %v passed %v, want failed", n, ok, passed)
				}
			}
			for _, s := range tc.feedback {
				if !strings.Contains(ex.Feedback, s) {
					t.Errorf("feedback lacks %q:\n%s", s, ex.Feedback)
				}
			}
			if ex.Status != corpus.StatusOK && ex.PassRate != 0 {
				t.Errorf("pass rate %v for status %s", ex.PassRate, ex.Status)
			}
			if len(ex.Tests) == 0 && (ex.PassRate != 0 || ex.FailedFrac != 1) {
				t.Errorf("no tests: pass rate %v failed frac %v, want 0 and 1", ex.PassRate, ex.FailedFrac)
			}
			if got := ex.PassRate + ex.FailedFrac; len(ex.Tests) > 0 && (got < 0.999 || got > 1.001) {
				t.Errorf("pass rate %v + failed frac %v != 1", ex.PassRate, ex.FailedFrac)
			}
			if len(ex.Feedback) > 0 && len([]rune(ex.Feedback)) > p.Options().FeedbackChars {
				t.Errorf("feedback %d chars > %d", len([]rune(ex.Feedback)), p.Options().FeedbackChars)
			}
		})
	}
}

func TestRunFeedbackTruncated(t *testing.T) {
	p := testPool(t)
	var b strings.Builder
	b.WriteString("from solution import f\nimport pytest\n")
	b.WriteString("@pytest.mark.parametrize('i', range(60))\ndef test_many(i):\n    assert f(i) == list(range(i, i + 30))\n")
	ex, err := p.Run(context.Background(), "def f(i):\n    return list(range(30))\n", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != corpus.StatusOK || len(ex.Tests) != 60 {
		t.Fatalf("status %s, %d tests", ex.Status, len(ex.Tests))
	}
	if n := len([]rune(ex.Feedback)); n > p.Options().FeedbackChars {
		t.Errorf("feedback has %d chars, limit %d", n, p.Options().FeedbackChars)
	}
	if !strings.Contains(ex.Feedback, "[feedback truncated") || !strings.HasPrefix(ex.Feedback, "short test summary:\nFAILED test_many[1]") {
		t.Errorf("feedback head/truncation note wrong:\n%s", ex.Feedback)
	}
}

func TestRunCoverage(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	p, err := New(Options{Workers: 1, Coverage: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	prog := "def sign(x):\n    if x > 0:\n        return 1\n    if x < 0:\n        return -1\n    return 0\n"
	tests := "from solution import sign\ndef test_pos():\n    assert sign(5) == 1\ndef test_zero():\n    assert sign(0) == 0\n"
	ex, err := p.Run(context.Background(), prog, tests)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int32{"test_pos": {2, 3}, "test_zero": {2, 4, 6}}
	for _, tr := range ex.Tests {
		w := want[tr.Name]
		if len(tr.Lines) != len(w) {
			t.Errorf("%s: lines %v, want %v", tr.Name, tr.Lines, w)
			continue
		}
		for i := range w {
			if tr.Lines[i] != w[i] {
				t.Errorf("%s: lines %v, want %v", tr.Name, tr.Lines, w)
				break
			}
		}
	}
}

func TestRunConcurrentAndCancel(t *testing.T) {
	p := testPool(t)
	prog := readTestdata(t, "kodcode_solution.py")
	tests := readTestdata(t, "kodcode_test.py")
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex, err := p.Run(context.Background(), prog, tests)
			if err == nil && !ex.Solved() {
				err = errorString("reference not solved: " + ex.Feedback)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Run(ctx, prog, tests); err == nil {
		t.Error("Run with a cancelled context returned no error")
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestRunCancelMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a worker")
	}
	p := testPool(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Run(ctx, "def f():\n    while True:\n        pass\n", "from solution import f\ndef test_f():\n    f()\n")
	if err == nil {
		t.Fatal("cancelled run returned no error")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cancel took %v", d)
	}
	ex, err := p.Run(context.Background(), "def f():\n    return 1\n", "from solution import f\ndef test_f():\n    assert f() == 1\n")
	if err != nil || !ex.Solved() {
		t.Fatalf("run after cancel: %v %+v", err, ex)
	}
}

func TestNoIsolation(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	p, err := New(Options{Workers: 1, NoIsolation: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, pr := range p.Protections() {
		switch pr {
		case "netns", "pidns", "mountns", "cgroup-pids", "cgroup-memory", "uid-drop", "readonly-root":
			t.Errorf("protection %s claimed without isolation", pr)
		}
	}
	ex, err := p.Run(context.Background(), readTestdata(t, "kodcode_solution.py"), readTestdata(t, "kodcode_test.py"))
	if err != nil || !ex.Solved() {
		t.Fatalf("reference not solved without isolation: %v\n%s", err, ex.Feedback)
	}
}
