package build_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/limits"
	"triage/corpus/stats"
)

// TestBuildCorpusInputChecks: a task whose reference fails and a task with
// a root that already passes are left out with their reasons in the
// manifest; with Strict the build is refused before any file is written.
func TestBuildCorpusInputChecks(t *testing.T) {
	tasks := corpustest.FakeTasks(6)
	tasks[1].Solution = "NEVER\n"
	tasks[4].Roots = []string{"def f(x): return x+4\n", corpustest.FakeReference}
	ctx := context.Background()
	dir := t.TempDir()
	man, err := build.BuildCorpus(ctx, tasks, buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{}))
	if err != nil {
		t.Fatal(err)
	}
	skipped := man.SkippedTasks()
	if len(skipped) != 2 || skipped[0].TaskID != "task-001" || !strings.HasPrefix(skipped[0].Skipped, "reference fails") ||
		skipped[1].TaskID != "task-004" || !strings.Contains(skipped[1].Skipped, "root 1 passes every test") {
		t.Fatalf("skipped %+v", skipped)
	}
	for _, r := range buildtest.AllRows(t, dir) {
		if r.TaskID == "task-001" || r.TaskID == "task-004" {
			t.Fatalf("a row of skipped task %s", r.TaskID)
		}
	}
	for _, s := range man.Shards {
		for _, r := range s.Tasks {
			if r.Skipped == "" && (r.Trees != 2 || r.LimitMS != float64(limits.DefaultTimeLimits().For(time.Duration(r.ReferenceMS*float64(time.Millisecond)))/time.Millisecond)) {
				t.Errorf("task record %+v", r)
			}
		}
	}
	if man.Trees != 8 {
		t.Errorf("%d trees, want 8 (4 valid tasks × 2 roots)", man.Trees)
	}
	// The stats report the parts the split limits charged (this executor
	// does not split its count: all of it is the harness's).
	st, err := stats.ComputeStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := st.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if l := st.Limits; l == nil || l.ProgramMS == nil || l.HarnessMS == nil || l.HarnessMS[1] != l.ReferenceMS[1] ||
		!strings.Contains(text.String(), "pytest's part") {
		t.Errorf("stats of the limits: %+v\n%s", st.Limits, text.String())
	}

	strict := t.TempDir()
	o := buildtest.Options(strict, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.Strict = true
	_, err = build.BuildCorpus(ctx, tasks, o)
	if !errors.Is(err, build.ErrInvalidTasks) || !strings.Contains(err.Error(), "task-001: reference fails") ||
		!strings.Contains(err.Error(), "task-004: root 1 passes") {
		t.Fatalf("strict: %v", err)
	}
	if entries, _ := os.ReadDir(strict); len(entries) != 0 {
		t.Errorf("strict refusal left files: %v", entries)
	}
	// A resumed strict build of valid tasks works.
	o = buildtest.Options(filepath.Join(strict, "ok"), &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.Strict = true
	if _, err := build.BuildCorpus(ctx, corpustest.FakeTasks(3), o); err != nil {
		t.Errorf("strict build of valid tasks: %v", err)
	}
}

// optsExecutor records the options of each run it makes.
type optsExecutor struct {
	corpustest.FakeExecutor
	mu   sync.Mutex
	runs []corpus.RunOptions
}

func (x *optsExecutor) RunWith(ctx context.Context, program, tests string, o corpus.RunOptions) (corpus.Execution, error) {
	x.mu.Lock()
	x.runs = append(x.runs, o)
	x.mu.Unlock()
	ex, err := x.Run(ctx, program, tests)
	if !o.Coverage {
		for i := range ex.Tests {
			ex.Tests[i].Lines = nil
		}
	}
	return ex, err
}

func TestCachedExecutorOptions(t *testing.T) {
	x := &optsExecutor{}
	c := build.NewCachedExecutor(x)
	ctx := context.Background()
	sec := corpus.RunOptions{Timeout: time.Second}
	plain, _ := c.RunWith(ctx, "p", "t", sec)
	cov, _ := c.RunWith(ctx, "p", "t", corpus.RunOptions{Timeout: time.Second, Coverage: true})
	if len(x.runs) != 2 || cov.Tests[0].Lines == nil || plain.Tests[0].Lines != nil {
		t.Fatalf("runs %v; coverage lines %v, plain %v", x.runs, cov.Tests[0].Lines, plain.Tests[0].Lines)
	}
	// A run with coverage answers one without (lines dropped), both ways of asking.
	c2 := build.NewCachedExecutor(x)
	x.runs = nil
	_, _ = c2.RunWith(ctx, "q", "t", corpus.RunOptions{Timeout: time.Second, Coverage: true})
	again, _ := c2.RunWith(ctx, "q", "t", sec)
	if len(x.runs) != 1 || again.Tests[0].Lines != nil {
		t.Errorf("runs %v; lines %v", x.runs, again.Tests[0].Lines)
	}
	// Another time limit is another run; Run (the executor's own settings) too.
	_, _ = c2.RunWith(ctx, "q", "t", corpus.RunOptions{Timeout: 2 * time.Second})
	_, _ = c2.Run(ctx, "q", "t")
	if len(x.runs) != 2 || x.Calls() != 5 || c2.Hits() != 1 { // 2 runs above, 3 here
		t.Errorf("runs %v, calls %d, hits %d", x.runs, x.Calls(), c2.Hits())
	}
}

// jitterExecutor delays each run by a random few hundred microseconds, so
// concurrent runs finish in a different order each time.
type jitterExecutor struct {
	corpustest.FakeExecutor
	n atomic.Uint64
}

func (x *jitterExecutor) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	r := rand.New(rand.NewPCG(x.n.Add(1), uint64(time.Now().UnixNano())))
	time.Sleep(time.Duration(r.IntN(500)) * time.Microsecond)
	return x.FakeExecutor.Run(ctx, program, tests)
}

// TestBuildTreeIndependentOfRunOrder: siblings grow concurrently, yet the
// tree (ids, edges, labels) is the same whatever order runs finish in.
func TestBuildTreeIndependentOfRunOrder(t *testing.T) {
	task := &corpus.Task{ID: "order", Test: "tests"}
	for ri := 0; ri < 4; ri++ {
		root := "def f(x):\n    return x - " + string(rune('a'+ri)) + "\n"
		want, err := build.BuildTree(context.Background(), buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), task, ri, root)
		if err != nil {
			t.Fatal(err)
		}
		for rep := 0; rep < 3; rep++ {
			cfg := buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
			cfg.Executor = &jitterExecutor{}
			got, err := build.BuildTree(context.Background(), cfg, task, ri, root)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("root %d: the tree depends on the order runs finished in", ri)
			}
		}
		checkTreeInvariants(t, want)
	}
}

// flakyExecutor fails the program "FLAKY\n" except when it runs with
// coverage, as a root that passes when its tree is built.
type flakyExecutor struct{ optsExecutor }

func (x *flakyExecutor) RunWith(ctx context.Context, program, tests string, o corpus.RunOptions) (corpus.Execution, error) {
	if program == "FLAKY\n" {
		pass := o.Coverage
		ex := corpus.Execution{Status: corpus.StatusOK, Tests: []corpus.TestResult{{Name: "t", Passed: pass}}, FailedFrac: 1}
		if pass {
			ex.PassRate, ex.FailedFrac = 1, 0
		}
		return ex, nil
	}
	return x.optsExecutor.RunWith(ctx, program, tests, o)
}

// TestBuildCorpusDropsFlakyRoot: a root that passed the input checks but
// passes every test when its tree is built leaves its task out.
func TestBuildCorpusDropsFlakyRoot(t *testing.T) {
	tasks := corpustest.FakeTasks(3)
	tasks[0].Roots = []string{"def f(x): return x+1\n", "FLAKY\n"}
	o := buildtest.Options(t.TempDir(), &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.Config.Executor = &flakyExecutor{}
	o.Config.Proposer = coverageProposer{&corpustest.FakeProposer{}}
	man, err := build.BuildCorpus(context.Background(), tasks, o)
	if err != nil {
		t.Fatal(err)
	}
	sk := man.SkippedTasks()
	if len(sk) != 1 || sk[0].TaskID != "task-000" || !strings.Contains(sk[0].Skipped, "root 1 passed every test when its tree was built") {
		t.Fatalf("skipped %+v", sk)
	}
	if man.Trees != 4 {
		t.Errorf("%d trees, want 4", man.Trees)
	}
}

// coverageProposer is a fake proposer that asks for coverage.
type coverageProposer struct{ *corpustest.FakeProposer }

func (coverageProposer) UsesCoverage() bool { return true }

// TestTaskCheckProgramBudget: a task check's run options carry the limit
// and, below it, the program's budget on the CPU clock, and no budget on the
// wall clock.
func TestTaskCheckProgramBudget(t *testing.T) {
	d := limits.DefaultTimeLimits()
	var c build.TaskCheck
	c.SetReference(limits.RefTime{MS: 90, ProgramMS: 4}, d)
	if o := c.RunOptions(d); o.CPU != c.Limit || o.ProgramCPU != d.ProgramFloor || o.ProgramCPU >= o.CPU {
		t.Errorf("run options %+v of %+v: want the limit and the program's budget below it", o, c)
	}
	if o := c.RunOptions(limits.DefaultWallTimeLimits()); o.ProgramCPU != 0 {
		t.Errorf("wall-clock run options %+v carry a program budget", o)
	}
}
