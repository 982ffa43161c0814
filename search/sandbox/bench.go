package sandbox

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"triage/corpus"
)

//go:embed benchdata/suites.json
var suitesJSON []byte

// Suite is one (program, tests) pair of the benchmark and parity set.
type Suite struct {
	Name    string
	Program string
	Tests   string
}

type suiteFile struct {
	Tasks []struct {
		ID       string      `json:"id"`
		Solution string      `json:"solution"`
		Test     string      `json:"test"`
		Mutants  [][2]string `json:"mutants"`
	} `json:"tasks"`
	Crash [][2]string `json:"crash"`
}

// BenchSuites returns the embedded benchmark set: for each of its tasks the
// reference solution and single-edit mutants (passing and failing runs),
// plus programs that crash, fail to import or exit early.
func BenchSuites() ([]Suite, error) {
	var f suiteFile
	if err := json.Unmarshal(suitesJSON, &f); err != nil {
		return nil, fmt.Errorf("bench suites: %w", err)
	}
	tests := map[string]string{}
	var out []Suite
	for _, t := range f.Tasks {
		tests[t.ID] = t.Test
		out = append(out, Suite{Name: t.ID + "/ref", Program: t.Solution, Tests: t.Test})
		for i, m := range t.Mutants {
			if !strings.Contains(t.Solution, m[0]) {
				return nil, fmt.Errorf("bench suites: task %s mutant %d: %q not in solution", t.ID, i, m[0])
			}
			out = append(out, Suite{Name: fmt.Sprintf("%s/mut%d", t.ID, i), Program: strings.Replace(t.Solution, m[0], m[1], 1), Tests: t.Test})
		}
	}
	for i, c := range f.Crash {
		tt, ok := tests[c[0]]
		if !ok {
			return nil, fmt.Errorf("bench suites: crash program %d: unknown task %q", i, c[0])
		}
		out = append(out, Suite{Name: fmt.Sprintf("%s/crash%d", c[0], i), Program: c[1], Tests: tt})
	}
	return out, nil
}

// BenchOptions configures Bench.
type BenchOptions struct {
	Runs     int     // runs on each side (default 220)
	Workers  int     // concurrent runs on each side (default Options.Workers)
	Pool     Options // options of the executor under test
	Progress io.Writer
}

// BenchResult is what `triage bench sandbox` reports.
type BenchResult struct {
	Runs               int      `json:"runs"`
	Workers            int      `json:"workers"`
	ExecutorSuitesPerS float64  `json:"executor_suites_per_s"`
	PytestSuitesPerS   float64  `json:"pytest_suites_per_s"`
	Ratio              float64  `json:"ratio"`
	VerdictMismatches  int      `json:"verdict_mismatches"`
	Mismatches         []string `json:"mismatches,omitempty"`
	ExecutorSeconds    float64  `json:"executor_seconds"`
	PytestSeconds      float64  `json:"pytest_seconds"`
	// CPU time (user+system, all processes) per suite on each side, measured
	// with getrusage; the executor's includes starting its workers. These do
	// not depend on what else the machine runs, unlike the rates above.
	ExecutorCPUMSPerSuite float64 `json:"executor_cpu_ms_per_suite"`
	PytestCPUMSPerSuite   float64 `json:"pytest_cpu_ms_per_suite"`
	// CPUCapacitySuitesPerS is NumCPU × 1000 / ExecutorCPUMSPerSuite: the
	// executor's rate on this machine's cores when nothing else runs.
	CPUCapacitySuitesPerS float64               `json:"executor_cpu_capacity_suites_per_s"`
	Statuses              map[corpus.Status]int `json:"executor_statuses"`
	Protections           []string              `json:"protections"`
	// ExecutorPhases splits ExecutorCPUMSPerSuite by phase: the workers'
	// start-up, each run's judge by phase (as it reports its CPU clock) and
	// program process (as the worker reads its clock), the worker's own
	// side of the runs, the reference collections, this process, and what
	// is left.
	ExecutorPhases []PhaseCPU `json:"executor_cpu_ms_per_suite_by_phase"`
	// ReferenceCollections counts the test files whose reference ids the
	// executor took (collected with a stand-in program, or read from the
	// text): one per distinct test file when runs that want the same file
	// at once share one.
	ReferenceCollections int64 `json:"reference_collections"`
	// ReferenceIDsFromText counts those answered from the test file's text
	// alone (a plain file: no decorators, classes or computed names), with
	// no child and no program.
	ReferenceIDsFromText int64 `json:"reference_ids_from_text"`
	// DirectRuns counts the runs whose tests the direct runner ran (a plain
	// test file, its tests called without pytest's collection);
	// DirectFallbacks, those it handed back to pytest's own run.
	DirectRuns      int64 `json:"direct_runs"`
	DirectFallbacks int64 `json:"direct_fallbacks"`
	// KeptJudgeRuns counts the runs that a judge kept from the run before
	// (the same test file and settings) took, with no fork of a judge.
	KeptJudgeRuns int64 `json:"kept_judge_runs"`
	Coverage      bool  `json:"coverage"`
	// ForkServerWorkers counts the worker starts whose runs' children a fork
	// server forked (the worker itself never forks them then).
	ForkServerWorkers int64 `json:"fork_server_workers"`
	// ForkServerHugePages counts the 2 MiB huge pages those fork servers
	// made of their memory at start (0 where the kernel has no
	// MADV_COLLAPSE): each one a page-table entry that a fork copies and a
	// child's exit unmaps, where there were 512.
	ForkServerHugePages int64 `json:"fork_server_hugepages"`
}

// Bench runs the same Runs (program, tests) pairs through a Pool and through
// per-process pytest, with the same concurrency, and compares every run's
// per-test verdicts.
func Bench(ctx context.Context, o BenchOptions) (BenchResult, error) {
	suites, err := BenchSuites()
	if err != nil {
		return BenchResult{}, err
	}
	if o.Runs <= 0 {
		o.Runs = 220
	}
	popts := o.Pool.withDefaults()
	if o.Workers <= 0 {
		o.Workers = popts.Workers
	}
	popts.Workers = o.Workers
	popts.phases = true
	cpu0, self0 := cpuSeconds(), selfCPUSeconds()
	pool, err := New(popts)
	if err != nil {
		return BenchResult{}, err
	}
	defer pool.Close()
	res := BenchResult{Runs: o.Runs, Workers: o.Workers, Protections: pool.Protections(), Statuses: map[corpus.Status]int{},
		Coverage: popts.Coverage}
	pick := func(i int) Suite { return suites[i%len(suites)] }

	ours := make([]corpus.Execution, o.Runs)
	secs, err := runAll(ctx, pool, o.Runs, o.Workers, pick, ours, o.Progress, "executor")
	if err != nil {
		return res, err
	}
	res.ExecutorSeconds = secs
	// Workers (and the children they reaped) count in RUSAGE_CHILDREN once
	// they have been waited for, i.e. after Close.
	if err := pool.Close(); err != nil {
		return res, err
	}
	cpu1 := cpuSeconds()
	res.ExecutorCPUMSPerSuite = (cpu1 - cpu0) * 1000 / float64(o.Runs)
	res.ExecutorPhases = perSuite(pool.phases.snapshot(), (selfCPUSeconds()-self0)*1000, (cpu1-cpu0)*1000, o.Runs)
	res.ReferenceCollections = pool.collects.Load()
	res.ReferenceIDsFromText = pool.staticIDs.Load()
	res.DirectRuns, res.DirectFallbacks = pool.direct.Load(), pool.fallbacks.Load()
	res.KeptJudgeRuns = pool.keptRuns.Load()
	res.ForkServerWorkers = pool.forkServers.Load()
	res.ForkServerHugePages = pool.hugePages.Load()
	if res.ExecutorCPUMSPerSuite > 0 {
		res.CPUCapacitySuitesPerS = float64(runtime.NumCPU()) * 1000 / res.ExecutorCPUMSPerSuite
	}
	ref := make([]corpus.Execution, o.Runs)
	// The reference gets a generous limit: a loaded machine must not turn slow
	// pytest starts into timeouts (no pair of the set loops forever).
	pp := PerProcess{Python: popts.Python, Timeout: 6 * popts.Timeout}
	secs, err = runAll(ctx, pp, o.Runs, o.Workers, pick, ref, o.Progress, "pytest")
	if err != nil {
		return res, err
	}
	res.PytestSeconds = secs
	res.PytestCPUMSPerSuite = (cpuSeconds() - cpu1) * 1000 / float64(o.Runs)
	for i := range ours {
		res.Statuses[ours[i].Status]++
		if same, why := SameVerdicts(ours[i], ref[i]); !same {
			res.VerdictMismatches++
			if len(res.Mismatches) < 20 {
				res.Mismatches = append(res.Mismatches, pick(i).Name+": "+why)
			}
		}
	}
	res.ExecutorSuitesPerS = float64(o.Runs) / res.ExecutorSeconds
	res.PytestSuitesPerS = float64(o.Runs) / res.PytestSeconds
	res.Ratio = res.ExecutorSuitesPerS / res.PytestSuitesPerS
	return res, nil
}

// runAll runs n suites through e with the given concurrency and returns the
// elapsed seconds. After a failed run no further suite starts; the first
// error is returned.
func runAll(ctx context.Context, e corpus.Executor, n, workers int, pick func(int) Suite, out []corpus.Execution, progress io.Writer, label string) (float64, error) {
	var done atomic.Int64
	var failed atomic.Bool
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	start := time.Now()
	for i := 0; i < n && ctx.Err() == nil && !failed.Load(); i++ {
		g.Go(func() error {
			if ctx.Err() != nil || failed.Load() {
				return nil
			}
			s := pick(i)
			ex, err := e.Run(ctx, s.Program, s.Tests)
			if err != nil {
				failed.Store(true)
				return fmt.Errorf("%s run %s: %w", label, s.Name, err)
			}
			out[i] = ex
			if d := done.Add(1); progress != nil && (d%50 == 0 || int(d) == n) {
				fmt.Fprintf(progress, "%s: %d/%d runs, %.1fs\n", label, d, n, time.Since(start).Seconds())
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return 0, err
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return time.Since(start).Seconds(), nil
}

// cpuSeconds is the user+system CPU time of this process and of its waited-for
// children.
func cpuSeconds() float64 {
	var total float64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			total += float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
		}
	}
	return total
}

// Phases of a suite's CPU time that Bench reports, in order.
var benchPhases = []string{
	"worker_startup", // starting the workers: importing and warming pytest, the new root, filters, calibration
	"fork_setup",     // a run's judge and program process before their start marks: the forks' page copies, rlimits, uid, filters
	"program",        // the program process: solution.py's import and every call into it, the values it sends
	"collection",     // the judge collecting the test file (with the requests of the program's import)
	"tests",          // the judge's side of the test functions' bodies (assertions, requests, values read)
	"reporting",      // the judge's fixtures, pytest's reports, the result lines, session end
	"worker_run",     // the worker's side of a run: files, the forks, waiting, reading the lines, clean-up
	"reference_ids",  // collecting each test file with a stand-in program (once per file)
	"go",             // this process: the pool, the protocol, verdicts
	"other",          // the rest of the total (processes a run left behind, rounding)
}

// cpuPhases accumulates a pool's CPU by phase, in ms (Options.phases).
type cpuPhases struct {
	mu sync.Mutex
	ms map[string]float64
}

func (c *cpuPhases) addMS(kv ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ms == nil {
		c.ms = map[string]float64{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.ms[kv[i].(string)] += kv[i+1].(float64)
	}
}

// startup counts a worker's start-up CPU.
func (c *cpuPhases) startup(hello wireResponse) {
	total := 0.0
	for _, ms := range hello.StartupCPUMS {
		total += ms
	}
	c.addMS("worker_startup", total)
}

// add counts the CPU a response reports, by the request's kind.
func (c *cpuPhases) add(kind string, resp wireResponse) {
	switch kind {
	case kindCollect:
		c.addMS("reference_ids", resp.ChildCPUMS+resp.WorkerCPUMS)
	default:
		var ph map[string]float64
		for _, ev := range resp.Events {
			if ev.T == "done" {
				ph = ev.Phases
			}
		}
		rest := resp.CPUMS - resp.ProgramCPUMS - ph["collection"] - ph["tests"]
		c.addMS("fork_setup", resp.SetupCPUMS, "program", resp.ProgramCPUMS, "collection", ph["collection"],
			"tests", ph["tests"], "reporting", max(rest, 0), "worker_run", resp.WorkerCPUMS)
	}
}

// snapshot returns a copy of the totals.
func (c *cpuPhases) snapshot() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]float64, len(c.ms))
	for k, v := range c.ms {
		out[k] = v
	}
	return out
}

// selfCPUSeconds is the user+system CPU time of this process alone.
func selfCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// perSuite divides the phase totals by runs, with this process's CPU as
// "go" and the part of total that no phase explains as "other".
func perSuite(totals map[string]float64, goMS, totalMS float64, runs int) []PhaseCPU {
	totals["go"] = goMS
	sum := 0.0
	for _, ms := range totals {
		sum += ms
	}
	totals["other"] = totalMS - sum
	out := make([]PhaseCPU, 0, len(benchPhases))
	for _, name := range benchPhases {
		out = append(out, PhaseCPU{Phase: name, MSPerSuite: totals[name] / float64(runs)})
	}
	return out
}

// PhaseCPU is the CPU of one phase, per suite.
type PhaseCPU struct {
	Phase      string  `json:"phase"`
	MSPerSuite float64 `json:"ms_per_suite"`
}
