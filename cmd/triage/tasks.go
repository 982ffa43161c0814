package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/convert"
	"triage/corpus/limits"
	"triage/corpus/taskset"
	"triage/search/proposer/mutate"
	"triage/search/sandbox"
)

// skipBadLinesUsage is the help of every --skip-bad-lines flag.
const skipBadLinesUsage = "use the valid tasks of a file with malformed lines instead of refusing it (exit 2)"

// tasksConvertLong is the long help of tasks convert.
const tasksConvertLong = `convert reads a public task set and writes a task file, keeping the tasks
that pass the checks 'tasks validate' runs; a task that fails them is left
out and listed with the reason. docs/tasks.md says where each set comes from
and what the conversion does.

--from mbpp: --in is MBPP's mbpp.jsonl. One task per MBPP task (id mbpp_NNN,
MBPP's own split: 1–10 and 601–974 train, 511–600 val, 11–510 test; source
mbpp, license CC-BY-4.0), its test file one pytest function per assert,
test_setup_code kept, line endings normalised. Challenge asserts are kept
where the reference passes them. A malformed line is bad input (exit 2,
naming the line). An input whose sha256 is not the verified original's is
converted with a warning.

--from exercism: --in is a checkout of github.com/exercism/python. One task
per practice exercise (id exercism_<slug>): .meta/example.py the reference,
the unittest file the tests with its import of the exercise module
rewritten to solution, the instructions the question.

--from thealgorithms: --in is a checkout of github.com/TheAlgorithms/Python.
One task per module-level function with doctests (id
thealgorithms_<path>_<function>): the function with what it needs of its
module, each doctest example a pytest test comparing the value; functions
that need I/O, randomness or packages outside Python's standard library are
left out.

For exercism and thealgorithms the commit is read from --in's .git, or given
with --commit; every task records it in its origin, with license MIT, the
split by the hash of its id, and the source. A task whose reference takes
more than --slow-factor times the median is left out as slow. --report
writes the report (JSON) with every unit left out.`

// convertFlags are tasks convert's flags.
type convertFlags struct {
	from, in, out, commit, report string
	workers                       int
	slowFactor                    float64
	sbLimits                      sandbox.LimitsPolicy
}

// newTasksConvertCmd parses flags and calls the converter of --from
// (runConvert).
func newTasksConvertCmd() *cobra.Command {
	f := &convertFlags{}
	c := &cobra.Command{
		Use:   "convert",
		Short: "Convert a public task set (MBPP, Exercism, TheAlgorithms) into the task format, keeping what the sandbox confirms",
		Long:  tasksConvertLong,
		Example: `  triage tasks convert --from mbpp --in mbpp.jsonl --out corpus/mbpp/tasks.jsonl
  triage tasks convert --from exercism --in exercism-python --out corpus/exercism/tasks.jsonl --report out/exercism-report.json
  triage tasks convert --from thealgorithms --in algorithms --commit f5988cc09713315817df6a7e327e258013a94440 --out corpus/thealgorithms/tasks.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error { return runConvert(cmd, f) },
	}
	c.Flags().StringVar(&f.from, "from", "", `the task set: "mbpp", "exercism" or "thealgorithms"`)
	c.Flags().StringVar(&f.in, "in", "", "the task set: mbpp.jsonl, or the folder of a checkout (exercism, thealgorithms)")
	c.Flags().StringVar(&f.out, "out", "", "output task file (JSONL)")
	c.Flags().StringVar(&f.commit, "commit", "", "the checkout's commit, when --in has no .git (exercism, thealgorithms)")
	c.Flags().StringVar(&f.report, "report", "", "also write the report, with every unit left out, to this JSON file (exercism, thealgorithms)")
	c.Flags().Float64Var(&f.slowFactor, "slow-factor", convert.DefaultSlowFactor, "leave out a task whose reference takes more than this many times the median (exercism, thealgorithms)")
	c.Flags().IntVar(&f.workers, "workers", 0, "sandbox workers"+workersZero)
	addSandboxLimitsFlag(c, &f.sbLimits)
	return c
}

// runConvert checks tasks convert's flags and calls the converter of
// --from: convert.ConvertMBPP, convert.ConvertExercism or
// convert.ConvertTheAlgorithms, which hold the conversion.
func runConvert(cmd *cobra.Command, f *convertFlags) error {
	from, in, out := f.from, f.in, f.out
	switch {
	case from != convert.MBPPSource && from != convert.ExercismSource && from != convert.TheAlgorithmsSource:
		return badInput("--from %q: want %q, %q or %q", from, convert.MBPPSource, convert.ExercismSource, convert.TheAlgorithmsSource)
	case in == "" || out == "":
		return badInput("--in and --out are required")
	case taskset.SamePath(in, out):
		return badInput("--out %s is the --in file", out)
	case from == convert.MBPPSource && (f.commit != "" || f.report != ""):
		return badInput("--commit and --report are for exercism and thealgorithms")
	case f.slowFactor < 1:
		return badInput("--slow-factor %v: want ≥ 1", f.slowFactor)
	}
	nw, err := corpus.Workers(f.workers)
	if err != nil {
		return err
	}
	if from == convert.MBPPSource {
		return convertMBPP(cmd, in, out, nw, f.sbLimits)
	}
	if st, err := os.Stat(in); err != nil || !st.IsDir() {
		return badInput("--in %s: want the folder of a checkout", in)
	}
	pool, err := sandbox.Start(nw, f.sbLimits, nil, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	o := convert.Options{Commit: f.commit, Workers: 2 * nw, Limits: limits.DefaultTimeLimits(), SlowFactor: f.slowFactor,
		Python: pool.Options().Python, Progress: checkProgress}
	conv := convert.ConvertExercism
	if from == convert.TheAlgorithmsSource {
		conv = convert.ConvertTheAlgorithms
	}
	start := time.Now()
	tasks, rep, err := conv(cmd.Context(), build.NewCachedExecutor(pool), in, o)
	if err != nil {
		return err
	}
	slog.Info("converted", "source", from, "seconds", time.Since(start).Seconds())
	if err := build.WriteTasksFile(out, tasks); err != nil {
		return err
	}
	if f.report != "" {
		if err := writeJSONFile(f.report, rep); err != nil {
			return err
		}
	}
	return printResult(cmd, rep, func(w io.Writer) error { return rep.WriteText(w, out) })
}

// checkProgress logs the input checks of a conversion.
func checkProgress(done, total int) {
	if done%100 == 0 || done == total {
		slog.Info("checking", "tasks", done, "of", total)
	}
}

// convertMBPP converts MBPP's mbpp.jsonl at in into out.
func convertMBPP(cmd *cobra.Command, in, out string, nw int, sbLimits sandbox.LimitsPolicy) error {
	problems, err := convert.ReadMBPPFile(in)
	if err != nil {
		return err
	}
	pool, err := sandbox.Start(nw, sbLimits, nil, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	tasks, rep, err := convert.ConvertMBPP(cmd.Context(), build.NewCachedExecutor(pool), problems,
		convert.MBPPOptions{Workers: 2 * nw, Limits: limits.DefaultTimeLimits(), Progress: checkProgress})
	if err != nil {
		return err
	}
	if err := build.WriteTasksFile(out, tasks); err != nil {
		return err
	}
	return printResult(cmd, rep, func(w io.Writer) error { return rep.WriteText(w, out) })
}

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
	fl.IntVar(&f.workers, "workers", 0, "sandbox workers (and tasks injected concurrently)"+workersZero)
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
	if err := build.FillRoots(ctx, tasks, mutate.Inject, build.NewCachedExecutor(pool), f.roots, f.seed, f.workers, f.replace); err != nil {
		return err
	}

	rep := build.NewInjectReport(tasks, f.out, f.seed)
	if err := build.WriteTasksFile(f.out, tasks); err != nil {
		return err
	}
	rep.Seconds = time.Since(start).Seconds()
	return printResult(cmd, rep, rep.WriteText)
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
			rep, err := build.ValidateTasks(cmd.Context(), build.NewCachedExecutor(pool), 2*pool.Options().Workers, tasks, bad, limits)
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
	c.Flags().IntVar(&workers, "workers", 0, "concurrent sandbox runs"+workersZero)
	lf.register(c.Flags(), false)
	deprecatedAlias(c, "timeout", "test-timeout")
	return c
}

// writeJSONFile writes v as indented JSON to path.
func writeJSONFile(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := printJSON(f, v); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// sourceRow is one embedded task set as `tasks sources` lists it.
type sourceRow struct {
	Name    string         `json:"name"`
	Tasks   int            `json:"tasks"`
	Splits  map[string]int `json:"splits"`
	License string         `json:"license"`
	Commit  string         `json:"commit"`
	Origin  string         `json:"origin"`
}

func newTasksSourcesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sources",
		Short: "List the task sets embedded in the binary: tasks per split, licence, upstream commit, origin",
		Long: `sources lists every task set embedded in the binary, which --tasks takes by
name in place of a file: its tasks per split (train/val/test), its licence,
the upstream commit it was converted from ("this repository" for the
bundled set, written here) and where upstream it comes from. docs/tasks.md
says how each was made.`,
		Example: `  triage tasks sources
  triage tasks sources --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []sourceRow
			for _, s := range taskset.Sources() {
				tasks, err := s.Load()
				if err != nil {
					return fmt.Errorf("embedded set %s: %w", s.Name, err)
				}
				r := sourceRow{Name: s.Name, Tasks: len(tasks), Splits: map[string]int{}, License: s.License, Commit: s.Commit, Origin: s.Origin}
				for _, t := range tasks {
					r.Splits[t.Split]++
				}
				rows = append(rows, r)
			}
			return printResult(cmd, rows, func(w io.Writer) error {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tTASKS\tTRAIN\tVAL\tTEST\tLICENSE\tCOMMIT\tORIGIN")
				for _, r := range rows {
					fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", r.Name, r.Tasks,
						r.Splits[corpus.SplitTrain], r.Splits[corpus.SplitVal], r.Splits[corpus.SplitTest], r.License, r.Commit, r.Origin)
				}
				return tw.Flush()
			})
		},
	}
}
