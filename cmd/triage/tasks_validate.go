package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/search/sandbox"
)

// validateReport is the JSON output of `triage tasks validate`.
type validateReport struct {
	Tasks     int             `json:"tasks"`
	Valid     int             `json:"valid"`
	Invalid   []invalidTask   `json:"invalid"`
	Malformed []malformedLine `json:"malformed,omitempty"`
	Runs      int             `json:"runs"`
	Seconds   float64         `json:"seconds"`
	Statuses  map[string]int  `json:"statuses,omitempty"`
}

type invalidTask struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
}

type malformedLine struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Error string `json:"error"`
}

func newTasksValidateCmd() *cobra.Command {
	var (
		spec     string
		workers  int
		lf       timeLimitFlags
		sbLimits sandbox.LimitsPolicy
	)
	c := &cobra.Command{
		Use:   "validate",
		Short: "Run every task's reference and roots; report references that fail and roots that pass",
		Long: `validate loads a task file (JSONL, KodCode-compatible; or "bundled"), runs each
task's reference solution and each of its roots in the sandbox, and reports the
tasks that fail the input checks 'triage corpus build' also runs first: the
reference passes every test, the test file collects at least one test, and
each root loads and fails at least one test. Malformed lines are reported
with file and line; the rest still load.

Roots run under the task's adaptive time limit, from its reference's run
time with the defaults of corpus build's --test-timeout-floor, -factor and
-cap, or under --test-timeout when given, on --test-timeout-clock (CPU time
by default, as in corpus build).

Exit codes: 0 every task is valid, 1 some task is invalid or some line is
malformed (the report is printed first), 2 bad usage or unreadable file.`,
		Example: `  triage tasks validate --tasks bundled
  triage tasks validate --tasks kodcode.jsonl --workers 4 --json > report.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			limits, err := lf.limits()
			if err != nil {
				return err
			}
			nw, err := resolveWorkers(workers)
			if err != nil {
				return err
			}
			tasks, bad, err := loadTaskSpecLines(spec)
			if err != nil {
				return err
			}
			if len(tasks) == 0 && len(bad) == 0 {
				return badInput("%s: no task", spec)
			}
			opts := sandbox.DefaultOptions()
			opts.Workers = nw
			opts.Limits = sbLimits
			measure := limits.Measure()
			opts.Timeout, opts.CPULimit = measure.Timeout, measure.CPU
			rep, err := validateTasks(cmd.Context(), tasks, bad, opts, limits)
			if err != nil {
				return err
			}
			if jsonFlag(cmd) {
				if err := printJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				printValidateTable(cmd, rep)
			}
			if len(rep.Invalid) > 0 || len(rep.Malformed) > 0 {
				return fmt.Errorf("%d invalid tasks, %d malformed lines", len(rep.Invalid), len(rep.Malformed))
			}
			return nil
		},
	}
	c.Flags().StringVar(&spec, "tasks", "", `task file (JSONL) or "bundled"`)
	addSandboxLimitsFlag(c, &sbLimits)
	c.Flags().IntVar(&workers, "workers", 0, "concurrent sandbox runs"+workersZero)
	lf.register(c.Flags(), false)
	deprecatedAlias(c, "timeout", "test-timeout")
	return c
}

// validateTasks runs the input checks (corpus.CheckTasks) of every task.
func validateTasks(ctx context.Context, tasks []corpus.Task, bad []corpus.TaskLineError, opts sandbox.Options, limits corpus.TimeLimits) (validateReport, error) {
	rep := validateReport{Tasks: len(tasks), Invalid: []invalidTask{}, Statuses: map[string]int{}}
	for _, b := range bad {
		rep.Malformed = append(rep.Malformed, malformedLine{File: b.File, Line: b.Line, Error: b.Err.Error()})
	}
	pool, err := sandbox.New(opts)
	if err != nil {
		return rep, fmt.Errorf("start sandbox: %w", err)
	}
	defer pool.Close()
	start := time.Now()
	progress := func(done, total int) {
		if done%50 == 0 {
			slog.Info("validating", "tasks", done, "of", total)
		}
	}
	// Twice as many tasks as workers in flight keep every worker busy.
	checks, err := corpus.CheckTasks(ctx, corpus.NewCachedExecutor(pool), tasks,
		corpus.CheckOptions{ReferenceRuns: 1, Limits: limits}, 2*pool.Options().Workers, progress)
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
		rep.Invalid = append(rep.Invalid, invalidTask{TaskID: c.TaskID, Reason: c.Reason()})
	}
	return rep, nil
}

func printValidateTable(cmd *cobra.Command, rep validateReport) {
	out := cmd.OutOrStdout()
	for _, m := range rep.Malformed {
		fmt.Fprintf(os.Stderr, "%s:%d: malformed: %s\n", m.File, m.Line, m.Error)
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
