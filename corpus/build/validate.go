package build

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"triage/corpus"
	"triage/corpus/limits"
)

// TaskCheck is what the input checks found for one task.
type TaskCheck struct {
	TaskID string `json:"task_id"`
	// ReferenceMS is the median of the reference's runs (one cold run in
	// a fresh worker does not set it), on the clock of the limits (CPU or
	// wall time, TimeLimits.Reference); Limit the time limit that
	// TimeLimits give the task from it.
	ReferenceMS float64 `json:"reference_ms"`
	// ProgramMS is the median of the part of the reference's CPU spent in
	// its import and test bodies, HarnessMS of the rest (split limits only,
	// TimeLimits.Split; zero otherwise).
	ProgramMS float64 `json:"reference_program_ms,omitempty"`
	HarnessMS float64 `json:"reference_harness_ms,omitempty"`
	// OwnMS is the median of the part of ProgramMS in the program's own
	// code, where the reference's runs counted it (limits.RefTime.OwnMS).
	OwnMS float64       `json:"reference_program_own_ms,omitempty"`
	Limit time.Duration `json:"limit"`
	// ProgramLimit is the budget of the program's own code in each run
	// within Limit (TimeLimits.ProgramLimitOf; zero: none).
	ProgramLimit time.Duration `json:"program_limit,omitempty"`
	// Tests is the number of tests the reference's run collected.
	Tests int `json:"tests"`
	// Problems say why the task cannot enter a corpus; none when it can.
	Problems []string `json:"problems,omitempty"`
	// Runs counts the executor calls; Statuses the run statuses.
	Runs     int                   `json:"runs"`
	Statuses map[corpus.Status]int `json:"statuses"`
}

// Valid reports whether the task passed every check.
func (c TaskCheck) Valid() bool { return len(c.Problems) == 0 }

// Reason joins the problems into one line.
func (c TaskCheck) Reason() string { return strings.Join(c.Problems, "; ") }

// CheckOptions configure CheckTask.
type CheckOptions struct {
	// ReferenceRuns is how often the reference is run and timed (default 1).
	ReferenceRuns int
	// Limits time the reference under Limits.Measure() and give the task's
	// limit, under which its roots are run (zero value: the executor's own
	// limit for every run).
	Limits limits.TimeLimits
	// Coverage times the reference with per-test coverage, as the programs
	// that get proposals will run.
	Coverage bool
}

// CheckTask runs the checks a task must pass before it enters a corpus or a
// search: the reference passes every test (run ReferenceRuns times, each
// timed); the test file collects at least one test; each root the task
// ships loads and fails at least one test. A root that already passes
// would give every policy a search of length zero. Problems are data in
// the result; the error is for cancellation and broken executors.
func CheckTask(ctx context.Context, exec corpus.Executor, task *corpus.Task, o CheckOptions) (TaskCheck, error) {
	c := TaskCheck{TaskID: task.ID, Statuses: map[corpus.Status]int{}}
	runs := max(o.ReferenceRuns, 1)
	measure := o.Limits.Measure()
	measure.Coverage = o.Coverage
	var times []limits.RefTime
	for i := 0; i < runs; i++ {
		ex, err := corpus.RunWith(ctx, exec, task.Solution, task.Test, measure)
		if err != nil {
			return c, fmt.Errorf("check task %s: run reference: %w", task.ID, err)
		}
		c.Runs++
		c.Statuses[ex.Status]++
		times = append(times, o.Limits.Sample(ex))
		if i > 0 {
			continue
		}
		c.Tests = len(ex.Tests)
		switch {
		case ex.Status == corpus.StatusOK && len(ex.Tests) == 0:
			c.Problems = append(c.Problems, "the test file collects no test")
		case !ex.Solved():
			c.Problems = append(c.Problems, "reference fails: "+corpus.Summarize(ex))
		}
		if len(c.Problems) > 0 {
			break // no timing of a reference that does not pass
		}
	}
	c.setReference(limits.MedianRef(times), o.Limits)
	for r, root := range task.Roots {
		ex, err := corpus.RunWith(ctx, exec, root, task.Test, c.RunOptions(o.Limits))
		if err != nil {
			return c, fmt.Errorf("check task %s: run root %d: %w", task.ID, r, err)
		}
		c.Runs++
		c.Statuses[ex.Status]++
		switch {
		case ex.Solved():
			c.Problems = append(c.Problems, fmt.Sprintf("root %d passes every test (%d tests)", r, len(ex.Tests)))
		case ex.Status == corpus.StatusLoadError:
			c.Problems = append(c.Problems, fmt.Sprintf("root %d does not load: %s", r, corpus.Summarize(ex)))
		}
	}
	return c, nil
}

// setReference records the reference's time r and the limit l gives it
// (none for zero limits).
func (c *TaskCheck) setReference(r limits.RefTime, l limits.TimeLimits) {
	c.ReferenceMS, c.ProgramMS, c.OwnMS = r.MS, r.ProgramMS, r.OwnMS
	c.HarnessMS = 0
	if l.Split() {
		c.HarnessMS = r.HarnessMS()
	}
	if l != (limits.TimeLimits{}) {
		c.Limit = l.LimitOf(r)
		c.ProgramLimit = l.ProgramLimitOf(r)
	}
}

// RunOptions are the options of a run of one of the task's programs under
// l: its limit, with the program's own budget.
func (c TaskCheck) RunOptions(l limits.TimeLimits) corpus.RunOptions {
	o := l.Run(c.Limit)
	if o.CPU > 0 {
		o.ProgramCPU = c.ProgramLimit
	}
	return o
}

// CheckTasks checks every task with at most workers checks at once and
// calls progress (if set) after each. The results are in task order.
func CheckTasks(ctx context.Context, exec corpus.Executor, tasks []corpus.Task, o CheckOptions, workers int, progress func(done, total int)) ([]TaskCheck, error) {
	out := make([]TaskCheck, len(tasks))
	var mu sync.Mutex
	done := 0
	err := corpus.ForEach(ctx, len(tasks), workers, func(i int) error {
		c, err := CheckTask(ctx, exec, &tasks[i], o)
		if err != nil {
			return err
		}
		out[i] = c
		mu.Lock()
		done++
		if progress != nil {
			progress(done, len(tasks))
		}
		mu.Unlock()
		return nil
	})
	return out, err
}

// FillRoots makes up to maxRoots roots with makeRoots for every task that has none
// (every task with replace), at most workers tasks at once. Each task's
// seed is seed itself: the same file and seed give the same roots.
func FillRoots(ctx context.Context, tasks []corpus.Task, makeRoots RootsFunc, exec corpus.Executor, maxRoots int, seed uint64, workers int, replace bool) error {
	return corpus.ForEach(ctx, len(tasks), workers, func(i int) error {
		if len(tasks[i].Roots) > 0 && !replace {
			return nil
		}
		roots, err := makeRoots(ctx, &tasks[i], exec, maxRoots, seed)
		if err != nil {
			return fmt.Errorf("task %s: make roots: %w", tasks[i].ID, err)
		}
		tasks[i].Roots = roots
		return nil
	})
}
