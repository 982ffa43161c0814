package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/search/sandbox"
)

func newBenchSandboxCmd() *cobra.Command {
	var (
		runs     int
		workers  int
		timeout  time.Duration
		coverage bool
		limits   sandbox.LimitsPolicy
	)
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Throughput and verdict parity of the sandbox executor against per-process pytest",
		Long: `sandbox runs the same (program, tests) pairs (reference solutions, single-edit
mutants, crashing and non-importing programs; embedded) through the sandbox
executor and through 'python3 -m pytest' one process per run, with the same
concurrency, and compares every run's per-test verdicts. It reports the CPU
time per suite of each side and splits the executor's by phase: the workers'
start-up, each run's fork and set-up, the program's import, collection, the
test bodies, reporting, the worker's side of the runs, the reference
collections, the re-check and the Go process (--json:
executor_cpu_ms_per_suite_by_phase). --coverage runs the executor with
per-test line coverage, as a corpus build does for programs that get
proposals. Progress goes to stderr.`,
		Example: `  triage bench sandbox
  triage bench sandbox --runs 40 --workers 2 --test-timeout 5s --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runs < 1 {
				return badInput("--runs %d: want ≥ 1", runs)
			}
			if timeout <= 0 {
				return badInput("--test-timeout %v: want a positive limit", timeout)
			}
			nw, err := corpus.Workers(workers)
			if err != nil {
				return err
			}
			opts := sandbox.DefaultOptions()
			opts.Timeout = timeout
			opts.Limits = limits
			opts.Coverage = coverage
			res, err := sandbox.Bench(cmd.Context(), sandbox.BenchOptions{Runs: runs, Workers: nw, Pool: opts, Progress: os.Stderr})
			if err != nil {
				return fmt.Errorf("bench sandbox: %w", err)
			}
			return printResult(cmd, res, res.WriteText)
		},
	}
	addSandboxLimitsFlag(c, &limits)
	c.Flags().IntVar(&runs, "runs", 220, "runs on each side (≥ 1)")
	c.Flags().IntVar(&workers, "workers", 0, "concurrent runs on each side"+corpus.WorkersZero)
	c.Flags().DurationVar(&timeout, "test-timeout", sandbox.DefaultOptions().Timeout, "wall-clock limit of one test-suite run (> 0)")
	deprecatedAlias(c, "timeout", "test-timeout")
	c.Flags().BoolVar(&coverage, "coverage", false, "run the executor with per-test line coverage")
	return c
}
