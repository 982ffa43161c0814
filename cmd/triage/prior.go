package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/taskset"
	"triage/model/codeprior"
)

type priorBuildFlags struct {
	sources, exclude, out, minCount string
	order, budgetMB, heldOutEvery   int
}

func newPriorBuildCmd() *cobra.Command {
	var f priorBuildFlags
	c := &cobra.Command{
		Use:   "build --sources FILE --out FILE",
		Short: "Build the code prior: an n-gram of Python from code outside the task corpora",
		Long: `build fits the code prior (package model/codeprior, docs/prior.md) on the
source folders that --sources lists (a JSON list of {"dir", "label", "kind",
"package", "version", "repo", "commit", "license"}; scripts/prior-sources.sh
writes one for the standard library and a named list of Debian packages).
Every .py file that shares a normalised window of three non-trivial lines
with the reference of any task of the --exclude-tasks sets (names of
embedded sets or JSONL files, comma-separated) is dropped; the overlap is
reported per source and per task set. One file in --held-out-every is held
out to measure perplexity. The artifact (--out) records the provenance of
every source and is the same byte for byte for the same inputs.`,
		Example: `  triage prior build --sources out/prior-src/sources.json --exclude-tasks bundled,mbpp --out model/codeprior/default.prior
  triage prior build --sources srcs.json --exclude-tasks bundled,mbpp,out/exercism.jsonl --order 4 --budget-mb 4 --out out/prior.bin --json`,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPriorBuild(cmd, &f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.sources, "sources", "", "JSON list of source folders with their provenance (required)")
	fl.StringVar(&f.exclude, "exclude-tasks", "bundled,mbpp", "task sets whose references no source file may share a window with: embedded set names or JSONL files, comma-separated")
	fl.StringVar(&f.out, "out", "", "the artifact to write (required)")
	fl.IntVar(&f.order, "order", codeprior.DefaultOrder, "n-gram order (1..10)")
	fl.IntVar(&f.budgetMB, "budget-mb", codeprior.DefaultBudget>>20, "the artifact's size limit in MiB; the smallest count cutoff that fits is chosen")
	fl.StringVar(&f.minCount, "min-count", "", "count cutoffs per order, e.g. 1,2,2,3,3 (default: chosen to fit --budget-mb)")
	fl.IntVar(&f.heldOutEvery, "held-out-every", codeprior.DefaultHeldOutEvery, "hold one file in this many out of the counts")
	return c
}

func runPriorBuild(cmd *cobra.Command, f *priorBuildFlags) error {
	if f.sources == "" || f.out == "" {
		return badInput("--sources and --out are required")
	}
	srcs, err := codeprior.ReadSources(f.sources)
	if err != nil {
		return &corpus.InputError{Err: err}
	}
	opts := codeprior.BuildOptions{Sources: srcs, Order: f.order, Budget: f.budgetMB << 20, HeldOutEvery: f.heldOutEvery}
	if f.minCount != "" {
		for _, s := range strings.Split(f.minCount, ",") {
			var n int
			if _, err := fmt.Sscan(s, &n); err != nil || n < 1 {
				return badInput("--min-count %q: want positive integers, comma-separated", f.minCount)
			}
			opts.MinCount = append(opts.MinCount, n)
		}
	}
	if opts.References, err = priorReferences(f.exclude); err != nil {
		return err
	}
	data, h, err := codeprior.Build(opts, slog.Default())
	if errors.Is(err, codeprior.ErrOptions) {
		return &corpus.InputError{Err: err}
	} else if err != nil {
		return err
	}
	tmp := f.out + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write the code prior: %w", err)
	}
	if err := os.Rename(tmp, f.out); err != nil {
		return fmt.Errorf("write the code prior: %w", err)
	}
	report := *h
	report.Vocab = nil // the symbols are in the artifact; the report is what was built
	return printResult(cmd, report, func(w io.Writer) error { return h.WriteReport(w, len(data)) })
}

// priorReferences loads the references of every task set of a
// comma-separated list; a set's name is its own (bundled, mbpp) or, for a
// file, each task's source (the file's name where a task names none).
func priorReferences(list string) ([]codeprior.Reference, error) {
	var refs []codeprior.Reference
	for _, spec := range strings.Split(list, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		tasks, err := taskset.Load(spec, false)
		if err != nil {
			return nil, err
		}
		for i := range tasks {
			name := spec
			if !taskset.Builtin(spec) {
				name = corpus.SourceOf(&tasks[i])
				if name == corpus.SourceUnknown {
					name = strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
				}
			}
			refs = append(refs, codeprior.Reference{TaskSet: name, TaskID: tasks[i].ID, Code: tasks[i].Solution})
		}
	}
	return refs, nil
}
