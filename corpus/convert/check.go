package convert

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/limits"
)

// License is the licence of both sources (recorded in every task).
const License = "MIT"

// DefaultSlowFactor is how many times the median reference's time a task's
// reference may take before the task is left out as slow: a corpus build
// runs every program of a tree under a limit scaled from its reference, so
// one slow task costs as much as dozens of ordinary ones. Twenty leaves a
// wide gap on both sides for the sets converted so far (docs/tasks.md), so
// that machine load does not move a task across it.
const DefaultSlowFactor = 20

// Options configure a conversion.
type Options struct {
	// Commit is the upstream commit of the input folder when it has no
	// .git to read it from; with a .git, it must agree.
	Commit string
	// Workers is the number of tasks checked at once (at least 1).
	Workers int
	// Limits time each reference as `tasks validate` does.
	Limits limits.TimeLimits
	// SlowFactor leaves out a task whose reference's CPU is above this many
	// times the median of the converted tasks (0: DefaultSlowFactor).
	SlowFactor float64
	// Python runs extract.py (thealgorithms only; default /usr/bin/python3).
	Python string
	// Progress, if set, is called as tasks are checked.
	Progress func(done, total int)
}

// Skipped is a unit of the upstream repository (an exercise, a function,
// one of its doctest examples) left out, and why.
type Skipped struct {
	// ID is the task id the unit has or would have had; Test names the
	// test (example) for a test left out of a kept task.
	ID   string `json:"id"`
	Test string `json:"test,omitempty"`
	// Stage is where it was left out: StageConvert (before any run),
	// StageTests (a test the reference fails in the sandbox), StageValidate
	// (the task fails the input checks) or StageSlow.
	Stage string `json:"stage"`
	// Reason is a short category (what the docs' tables count); Detail
	// says more where there is more to say.
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Stages of Skipped.
const (
	StageConvert  = "convert"
	StageTests    = "tests"
	StageValidate = "validate"
	StageSlow     = "slow"
)

// Report says what a conversion read, kept and left out.
type Report struct {
	Source string `json:"source"`
	Commit string `json:"commit"`
	// Units counts what was considered: exercises, or functions with
	// doctests.
	Units int `json:"units"`
	// Converted counts the tasks that went to the input checks; Tasks
	// those kept.
	Converted int            `json:"converted"`
	Tasks     int            `json:"tasks"`
	Splits    map[string]int `json:"splits"`
	Tests     int            `json:"tests"`
	// MedianReferenceMS is the median reference time of the tasks that
	// passed the checks; SlowLimitMS the time above which a task was left
	// out as slow.
	MedianReferenceMS float64 `json:"median_reference_ms"`
	SlowLimitMS       float64 `json:"slow_limit_ms"`
	// ReferenceMS is each checked task's reference time, by task id.
	ReferenceMS map[string]float64 `json:"reference_ms"`
	// Skipped lists everything left out; Reasons counts it by stage and
	// reason ("convert: uses randomness").
	Skipped []Skipped      `json:"skipped"`
	Reasons map[string]int `json:"reasons"`
	// Statuses counts the run statuses of the checks.
	Statuses map[string]int `json:"run_statuses"`
}

func newReport(source, commit string) Report {
	return Report{Source: source, Commit: commit, Splits: map[string]int{}, Skipped: []Skipped{},
		Reasons: map[string]int{}, Statuses: map[string]int{}, ReferenceMS: map[string]float64{}}
}

func (rep *Report) skip(s Skipped) {
	rep.Skipped = append(rep.Skipped, s)
	rep.Reasons[s.Stage+": "+s.Reason]++
}

// keepValid runs the input checks of `tasks validate` on every task and
// returns those that pass them and are not slow, in their order. A task
// that fails the checks, or whose reference takes more than SlowFactor
// times the median of those that pass, is recorded in rep.
func keepValid(ctx context.Context, exec corpus.Executor, tasks []corpus.Task, o Options, rep *Report) ([]corpus.Task, error) {
	rep.Converted = len(tasks)
	checks, err := build.CheckTasks(ctx, exec, tasks, build.CheckOptions{ReferenceRuns: 1, Limits: o.Limits}, max(o.Workers, 1), o.Progress)
	if err != nil {
		return nil, fmt.Errorf("check %s tasks: %w", rep.Source, err)
	}
	var times []float64
	for _, c := range checks {
		for s, n := range c.Statuses {
			rep.Statuses[string(s)] += n
		}
		if c.Valid() {
			times = append(times, c.ReferenceMS)
			rep.ReferenceMS[c.TaskID] = c.ReferenceMS
		}
	}
	factor := o.SlowFactor
	if factor <= 0 {
		factor = DefaultSlowFactor
	}
	if len(times) > 0 {
		sort.Float64s(times)
		rep.MedianReferenceMS = times[(len(times)-1)/2] // the lower middle of an even count
		rep.SlowLimitMS = factor * rep.MedianReferenceMS
	}
	var out []corpus.Task
	for i, c := range checks {
		switch {
		case !c.Valid():
			rep.skip(Skipped{ID: c.TaskID, Stage: StageValidate, Reason: checkReason(c), Detail: c.Reason()})
		case rep.SlowLimitMS > 0 && c.ReferenceMS > rep.SlowLimitMS:
			rep.skip(Skipped{ID: c.TaskID, Stage: StageSlow, Reason: fmt.Sprintf("reference above %g× the median", factor),
				Detail: fmt.Sprintf("%.0f ms, median %.0f ms", c.ReferenceMS, rep.MedianReferenceMS)})
		default:
			out = append(out, tasks[i])
			rep.Splits[tasks[i].Split]++
			rep.Tests += c.Tests
		}
	}
	rep.Tasks = len(out)
	return out, nil
}

// checkReason is the category of a failed check: no test collected, or the
// reference's run status ("reference fails (timeout)").
func checkReason(c build.TaskCheck) string {
	p := c.Reason()
	switch {
	case strings.Contains(p, "collects no test"):
		return "the test file collects no test"
	case strings.HasPrefix(p, "reference fails: status "):
		st, _, _ := strings.Cut(strings.TrimPrefix(p, "reference fails: status "), ":")
		return "reference fails (" + st + ")"
	case strings.HasPrefix(p, "reference fails: "):
		return "reference fails (tests fail)"
	}
	return p
}

// WriteText writes the report as `triage tasks convert` prints it: each
// unit left out, the counts by reason, then one summary line naming out,
// the task file written.
func (rep Report) WriteText(w io.Writer, out string) error {
	for _, s := range rep.Skipped {
		id := s.ID
		if s.Test != "" {
			id += " " + s.Test
		}
		line := fmt.Sprintf("left out %s [%s] %s", id, s.Stage, s.Reason)
		if s.Detail != "" {
			line += ": " + s.Detail
		}
		fmt.Fprintln(w, line)
	}
	reasons := make([]string, 0, len(rep.Reasons))
	for r := range rep.Reasons {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "%6d  %s\n", rep.Reasons[r], r)
	}
	_, err := fmt.Fprintf(w, "%s at %.12s: %d units, %d tasks converted, %d written to %s (train %d, val %d, test %d); %d tests; median reference %.0f ms\n",
		rep.Source, rep.Commit, rep.Units, rep.Converted, rep.Tasks, out,
		rep.Splits[corpus.SplitTrain], rep.Splits[corpus.SplitVal], rep.Splits[corpus.SplitTest], rep.Tests, rep.MedianReferenceMS)
	return err
}
