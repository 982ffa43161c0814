package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/search/sandbox"
)

func init() { register("tasks", newTasksValidateCmd) }

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
		spec    string
		workers int
		timeout time.Duration
	)
	c := &cobra.Command{
		Use:   "validate",
		Short: "Run every task's reference and roots; report references that fail and roots that pass",
		Long: `validate loads a task file (JSONL, KodCode-compatible; or "bundled"), runs each
task's reference solution and each of its roots in the sandbox, and reports the
tasks whose reference fails a test or whose root passes every test. Malformed
lines are reported with file and line; the rest still load.

Exit codes: 0 every task is valid, 1 some task is invalid or some line is
malformed (the report is printed first), 2 bad usage or unreadable file.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			tasks, bad, err := loadTaskSpecLines(spec)
			if err != nil {
				return err
			}
			opts := sandbox.DefaultOptions()
			if workers > 0 {
				opts.Workers = workers
			}
			if timeout > 0 {
				opts.Timeout = timeout
			}
			rep, err := validateTasks(cmd.Context(), tasks, bad, opts)
			if err != nil {
				return err
			}
			if flagJSON {
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
	c.Flags().IntVar(&workers, "workers", 0, "concurrent sandbox runs (default: number of CPUs)")
	c.Flags().DurationVar(&timeout, "timeout", 0, "wall-clock limit per run (default 10s)")
	return c
}

// validateTasks runs each reference and root and collects what is wrong.
func validateTasks(ctx context.Context, tasks []corpus.Task, bad []corpus.TaskLineError, opts sandbox.Options) (validateReport, error) {
	rep := validateReport{Tasks: len(tasks), Invalid: []invalidTask{}, Statuses: map[string]int{}}
	for _, b := range bad {
		rep.Malformed = append(rep.Malformed, malformedLine{File: b.File, Line: b.Line, Error: b.Err.Error()})
	}
	pool, err := sandbox.New(opts)
	if err != nil {
		return rep, fmt.Errorf("start sandbox: %w", err)
	}
	defer pool.Close()
	exec := sandbox.Cached(pool)
	type job struct {
		task int
		root int // -1 = reference
	}
	var jobs []job
	for i, t := range tasks {
		jobs = append(jobs, job{i, -1})
		for r := range t.Roots {
			jobs = append(jobs, job{i, r})
		}
	}
	reasons := make([][]string, len(tasks))
	var mu sync.Mutex
	var firstErr error
	start := time.Now()
	next := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < pool.Options().Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				t := tasks[j.task]
				prog := t.Solution
				if j.root >= 0 {
					prog = t.Roots[j.root]
				}
				ex, err := exec.Run(ctx, prog, t.Test)
				mu.Lock()
				rep.Runs++
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("task %s: %w", t.ID, err)
					}
					mu.Unlock()
					continue
				}
				rep.Statuses[string(ex.Status)]++
				switch {
				case j.root < 0 && !ex.Solved():
					reasons[j.task] = append(reasons[j.task], "reference fails: "+summarize(ex))
				case j.root >= 0 && ex.Solved():
					reasons[j.task] = append(reasons[j.task], fmt.Sprintf("root %d passes every test (%d tests)", j.root, len(ex.Tests)))
				}
				if rep.Runs%50 == 0 {
					slog.Info("validating", "runs", rep.Runs, "of", len(jobs))
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- j
	}
	close(next)
	wg.Wait()
	rep.Seconds = time.Since(start).Seconds()
	if firstErr != nil {
		return rep, firstErr
	}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	for i, rs := range reasons {
		if len(rs) == 0 {
			rep.Valid++
			continue
		}
		reason := rs[0]
		for _, r := range rs[1:] {
			reason += "; " + r
		}
		rep.Invalid = append(rep.Invalid, invalidTask{TaskID: tasks[i].ID, Reason: reason})
	}
	return rep, nil
}

// summarize says in one line why an execution is not solved.
func summarize(ex corpus.Execution) string {
	if ex.Status != corpus.StatusOK {
		return fmt.Sprintf("status %s: %s", ex.Status, firstLineOf(ex.Feedback))
	}
	if len(ex.Tests) == 0 {
		return "no tests collected"
	}
	failed := 0
	first := ""
	for _, t := range ex.Tests {
		if !t.Passed {
			failed++
			if first == "" {
				first = t.Name
				if t.Message != "" {
					first += " - " + firstLineOf(t.Message)
				}
			}
		}
	}
	return fmt.Sprintf("%d of %d tests fail (%s)", failed, len(ex.Tests), first)
}

func firstLineOf(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
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
