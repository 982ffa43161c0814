package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/taskset"
	"triage/search/sandbox"
)

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
			limits, err := lf.Limits()
			if err != nil {
				return err
			}
			nw, err := corpus.Workers(workers)
			if err != nil {
				return err
			}
			tasks, bad, err := taskset.LoadLines(spec)
			if err != nil {
				return err
			}
			if len(tasks) == 0 && len(bad) == 0 {
				return badInput("%s: no task", spec)
			}
			pool, err := sandbox.Start(nw, sbLimits, &limits, false)
			if err != nil {
				return err
			}
			defer pool.Close()
			// Twice as many tasks as workers in flight keep every worker busy.
			rep, err := corpus.ValidateTasks(cmd.Context(), corpus.NewCachedExecutor(pool), 2*pool.Options().Workers, tasks, bad, limits)
			if err != nil {
				return err
			}
			if jsonFlag(cmd) {
				if err := printJSON(cmd.OutOrStdout(), rep); err != nil {
					return err
				}
			} else {
				rep.WriteText(cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if len(rep.Invalid) > 0 || len(rep.Malformed) > 0 {
				return fmt.Errorf("%d invalid tasks, %d malformed lines", len(rep.Invalid), len(rep.Malformed))
			}
			return nil
		},
	}
	c.Flags().StringVar(&spec, "tasks", "", `task file (JSONL) or "bundled"`)
	addSandboxLimitsFlag(c, &sbLimits)
	c.Flags().IntVar(&workers, "workers", 0, "concurrent sandbox runs"+corpus.WorkersZero)
	lf.register(c.Flags(), false)
	deprecatedAlias(c, "timeout", "test-timeout")
	return c
}
