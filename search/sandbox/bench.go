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
	cpu0 := cpuSeconds()
	pool, err := New(popts)
	if err != nil {
		return BenchResult{}, err
	}
	defer pool.Close()
	res := BenchResult{Runs: o.Runs, Workers: o.Workers, Protections: pool.Protections(), Statuses: map[corpus.Status]int{}}
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
// elapsed seconds.
func runAll(ctx context.Context, e corpus.Executor, n, workers int, pick func(int) Suite, out []corpus.Execution, progress io.Writer, label string) (float64, error) {
	var next, done atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				s := pick(i)
				ex, err := e.Run(ctx, s.Program, s.Tests)
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("%s run %s: %w", label, s.Name, err) })
					return
				}
				out[i] = ex
				if d := done.Add(1); progress != nil && (d%50 == 0 || int(d) == n) {
					fmt.Fprintf(progress, "%s: %d/%d runs, %.1fs\n", label, d, n, time.Since(start).Seconds())
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
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
