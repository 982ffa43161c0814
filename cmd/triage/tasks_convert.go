package main

import (
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/taskset"
	"triage/search/sandbox"
)

// newTasksConvertCmd parses flags and calls corpus.ReadMBPP and
// corpus.ConvertMBPP, which hold the conversion.
func newTasksConvertCmd() *cobra.Command {
	var from, in, out string
	var workers int
	var sbLimits sandbox.LimitsPolicy
	c := &cobra.Command{
		Use:   "convert",
		Short: "Convert a public task set (MBPP) into the task format, keeping what the sandbox confirms",
		Long: `convert reads MBPP's mbpp.jsonl (--from mbpp) and writes a task file: one
task per MBPP task (id mbpp_NNN, MBPP's own split: 1–10 and 601–974 train,
511–600 val, 11–510 test; source mbpp, license CC-BY-4.0), its test file one
pytest function per assert, test_setup_code kept, line endings normalised.
Challenge asserts are kept where the reference passes them; then every task
goes through the checks 'tasks validate' runs, and a task that fails them is
left out and listed with the reason. A malformed line is bad input (exit 2,
naming the line). An input whose sha256 is not the verified original's is
converted with a warning. docs/tasks.md says where the file comes from.`,
		Example: `  triage tasks convert --from mbpp --in mbpp.jsonl --out corpus/mbpp/tasks.jsonl
  triage tasks convert --from mbpp --in mbpp.jsonl --out out/mbpp-tasks.jsonl --workers 2 --json > report.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case from != corpus.MBPPSource:
				return badInput("--from %q: the only converter is %q", from, corpus.MBPPSource)
			case in == "" || out == "":
				return badInput("--in and --out are required")
			case taskset.SamePath(in, out):
				return badInput("--out %s is the --in file", out)
			}
			nw, err := corpus.Workers(workers)
			if err != nil {
				return err
			}
			problems, err := corpus.ReadMBPPFile(in)
			if err != nil {
				return err
			}
			pool, err := sandbox.Start(nw, sbLimits, nil, false)
			if err != nil {
				return err
			}
			defer pool.Close()
			progress := func(done, total int) {
				if done%100 == 0 || done == total {
					slog.Info("checking", "tasks", done, "of", total)
				}
			}
			tasks, rep, err := corpus.ConvertMBPP(cmd.Context(), corpus.NewCachedExecutor(pool), problems,
				corpus.MBPPOptions{Workers: 2 * nw, Limits: corpus.DefaultTimeLimits(), Progress: progress})
			if err != nil {
				return err
			}
			if err := corpus.WriteTasksFile(out, tasks); err != nil {
				return err
			}
			return printResult(cmd, rep, func(w io.Writer) error { return rep.WriteText(w, out) })
		},
	}
	c.Flags().StringVar(&from, "from", "", `the task set: "mbpp"`)
	c.Flags().StringVar(&in, "in", "", "the task set's file (mbpp.jsonl)")
	c.Flags().StringVar(&out, "out", "", "output task file (JSONL)")
	c.Flags().IntVar(&workers, "workers", 0, "sandbox workers"+corpus.WorkersZero)
	addSandboxLimitsFlag(c, &sbLimits)
	return c
}
