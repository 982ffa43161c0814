package build

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"triage/corpus"
	"triage/corpus/limits"
)

// ValidateReport is what `triage tasks validate` reports (its JSON
// output).
type ValidateReport struct {
	Tasks     int             `json:"tasks"`
	Valid     int             `json:"valid"`
	Invalid   []InvalidTask   `json:"invalid"`
	Malformed []MalformedLine `json:"malformed,omitempty"`
	Runs      int             `json:"runs"`
	Seconds   float64         `json:"seconds"`
	Statuses  map[string]int  `json:"statuses,omitempty"`
}

// InvalidTask is a task that fails the input checks, and why.
type InvalidTask struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
}

// MalformedLine is a task-file line that does not parse.
type MalformedLine struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// ValidateTasks runs the input checks (CheckTasks) of every task on exec,
// workers tasks in flight, and reports them with the malformed lines bad.
func ValidateTasks(ctx context.Context, exec corpus.Executor, workers int, tasks []corpus.Task, bad []corpus.TaskLineError, limits limits.TimeLimits) (ValidateReport, error) {
	rep := ValidateReport{Tasks: len(tasks), Invalid: []InvalidTask{}, Statuses: map[string]int{}}
	for _, b := range bad {
		rep.Malformed = append(rep.Malformed, MalformedLine{File: b.File, Line: b.Line, Error: b.Err.Error()})
	}
	start := time.Now()
	progress := func(done, total int) {
		if done%50 == 0 {
			slog.Info("validating", "tasks", done, "of", total)
		}
	}
	checks, err := CheckTasks(ctx, exec, tasks, CheckOptions{ReferenceRuns: 1, Limits: limits}, workers, progress)
	rep.Seconds = time.Since(start).Seconds()
	if err != nil {
		return rep, err
	}
	for _, c := range checks {
		rep.Runs += c.Runs
		for s, n := range c.Statuses {
			rep.Statuses[string(s)] += n
		}
		if c.Valid() {
			rep.Valid++
			continue
		}
		rep.Invalid = append(rep.Invalid, InvalidTask{TaskID: c.TaskID, Reason: c.Reason()})
	}
	return rep, nil
}

// WriteText writes the report as a table to out, the malformed lines to
// errOut.
func (rep ValidateReport) WriteText(out, errOut io.Writer) {
	for _, m := range rep.Malformed {
		fmt.Fprintf(errOut, "%s:%d: malformed: %s\n", m.File, m.Line, m.Error)
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	if len(rep.Invalid) > 0 {
		fmt.Fprintln(tw, "TASK\tREASON")
		for _, it := range rep.Invalid {
			fmt.Fprintf(tw, "%s\t%s\n", it.TaskID, it.Reason)
		}
	}
	tw.Flush()
	fmt.Fprintf(out, "%d tasks, %d valid, %d invalid, %d malformed lines; %d runs in %.1fs\n",
		rep.Tasks, rep.Valid, len(rep.Invalid), len(rep.Malformed), rep.Runs, rep.Seconds)
}
