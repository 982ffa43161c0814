package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"triage/search/sandbox"
)

func init() { register("bench", newBenchSandboxCmd) }

func newBenchSandboxCmd() *cobra.Command {
	var (
		runs    int
		workers int
		timeout time.Duration
	)
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Throughput and verdict parity of the sandbox executor against per-process pytest",
		Long: `sandbox runs the same (program, tests) pairs (reference solutions, single-edit
mutants, crashing and non-importing programs; embedded) through the sandbox
executor and through 'python3 -m pytest' one process per run, with the same
concurrency, and compares every run's per-test verdicts. Progress goes to stderr.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runs < 0 || workers < 0 {
				return badInput("--runs and --workers must not be negative")
			}
			opts := sandbox.DefaultOptions()
			if timeout > 0 {
				opts.Timeout = timeout
			}
			res, err := sandbox.Bench(cmd.Context(), sandbox.BenchOptions{Runs: runs, Workers: workers, Pool: opts, Progress: os.Stderr})
			if err != nil {
				return fmt.Errorf("bench sandbox: %w", err)
			}
			if flagJSON {
				return printJSON(cmd.OutOrStdout(), res)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "EXECUTOR\tRUNS\tSECONDS\tSUITES/S")
			fmt.Fprintf(tw, "sandbox pool\t%d\t%.2f\t%.1f\n", res.Runs, res.ExecutorSeconds, res.ExecutorSuitesPerS)
			fmt.Fprintf(tw, "pytest per process\t%d\t%.2f\t%.1f\n", res.Runs, res.PytestSeconds, res.PytestSuitesPerS)
			tw.Flush()
			fmt.Fprintf(cmd.OutOrStdout(), "ratio %.1fx, verdict mismatches %d, workers %d\nprotections: %s\n",
				res.Ratio, res.VerdictMismatches, res.Workers, strings.Join(res.Protections, " "))
			for _, m := range res.Mismatches {
				fmt.Fprintln(cmd.OutOrStdout(), "mismatch:", m)
			}
			return nil
		},
	}
	c.Flags().IntVar(&runs, "runs", 220, "runs on each side")
	c.Flags().IntVar(&workers, "workers", 0, "concurrent runs on each side (default: number of CPUs)")
	c.Flags().DurationVar(&timeout, "timeout", 0, "wall-clock limit per run (default 10s)")
	return c
}
