package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/taskset"
	"triage/search/proposer/mutate"
	"triage/search/sandbox"
)

type tasksInjectFlags struct {
	tasks, out   string
	roots        int
	workers      int
	seed         uint64
	replace      bool
	skipBadLines bool
	limits       sandbox.LimitsPolicy
}

func newTasksInjectCmd() *cobra.Command {
	f := &tasksInjectFlags{}
	c := &cobra.Command{
		Use:   "inject",
		Short: "Plant bugs in reference solutions to make buggy roots (writes tasks with roots)",
		Long: `inject makes the buggy starting programs (roots) of every task: it applies 1–3
seeded mutations (comparison, arithmetic and boolean operators, constants,
off-by-one bounds, swapped operands or arguments, wrong variables, negated
conditions, deleted statements, changed return values) to the reference
solution, runs each mutant in the sandbox, and keeps only mutants that load
and fail at least one test, each program once, up to --roots per task. The
same task file and seed give the same roots.

Tasks that already have roots keep them unless --replace is given. The
output is the task file (JSONL) with roots filled; tasks for which no
failing mutant was found are written without roots and listed. A task
file with malformed lines is refused (exit 2, file:line) unless
--skip-bad-lines; --out must not be the --tasks file.`,
		Example: `  triage tasks inject --tasks bundled --roots 5 --seed 1 --out out/tasks-with-roots.jsonl
  triage tasks inject --tasks kodcode.jsonl --roots 3 --out out/k3.jsonl --json`,
		RunE: func(cmd *cobra.Command, args []string) error { return tasksInjectHandler(cmd.Context(), cmd, f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.tasks, "tasks", "", `tasks: a JSONL file or "bundled"`)
	fl.StringVar(&f.out, "out", "", "output JSONL file (the tasks with roots)")
	fl.IntVar(&f.roots, "roots", 5, "roots per task (at most)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the mutations")
	fl.IntVar(&f.workers, "workers", 0, "sandbox workers (and tasks injected concurrently)"+corpus.WorkersZero)
	fl.BoolVar(&f.replace, "replace", false, "replace roots that tasks already have")
	fl.BoolVar(&f.skipBadLines, "skip-bad-lines", false, skipBadLinesUsage+"; the output leaves them out")
	addSandboxLimitsFlag(c, &f.limits)
	return c
}

func tasksInjectHandler(ctx context.Context, cmd *cobra.Command, f *tasksInjectFlags) error {
	if f.out == "" {
		return badInput("--out is required")
	}
	if f.roots < 1 {
		return badInput("--roots must be ≥ 1, got %d", f.roots)
	}
	var err error
	if f.workers, err = corpus.Workers(f.workers); err != nil {
		return err
	}
	if !taskset.Builtin(f.tasks) && f.tasks != "" && taskset.SamePath(f.tasks, f.out) {
		return badInput("--out %s is the --tasks file: write the tasks with roots to a new file", f.out)
	}
	tasks, err := taskset.Load(f.tasks, f.skipBadLines)
	if err != nil {
		return err
	}
	pool, err := sandbox.Start(f.workers, f.limits, nil, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	start := time.Now()
	// Each task runs up to 8 mutants at once: one task per worker keeps
	// every worker busy.
	if err := corpus.FillRoots(ctx, tasks, mutate.Inject, corpus.NewCachedExecutor(pool), f.roots, f.seed, f.workers, f.replace); err != nil {
		return err
	}

	rep := corpus.NewInjectReport(tasks, f.out, f.seed)
	if err := corpus.WriteTasksFile(f.out, tasks); err != nil {
		return err
	}
	rep.Seconds = time.Since(start).Seconds()
	return printResult(cmd, rep, rep.WriteText)
}
