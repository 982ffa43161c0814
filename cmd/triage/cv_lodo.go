package main

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"triage/policy"
	"triage/search/eval/report"
	"triage/train"
)

// lodoFlags are the flags of `triage cv --lodo`.
type lodoFlags struct {
	on, allSplits, noHybrid, noEnsemble bool
	trainSeeds, hybridGrid              string
}

func (l *lodoFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.BoolVar(&l.on, "lodo", false, "leave one dataset out: --corpus NAME=DIR[,DIR...] per dataset; train on each, score on the others")
	fl.StringVar(&l.trainSeeds, "train-seeds", "", "with --lodo: training seeds, one model each, e.g. 1,2,3 (default: --seed)")
	fl.BoolVar(&l.allSplits, "all-splits", false, "with --lodo: score every split of the held-out dataset, not only its test split")
	fl.BoolVar(&l.noHybrid, "no-hybrid", false, "with --lodo: leave the hybrid policy out")
	fl.BoolVar(&l.noEnsemble, "no-ensemble", false, "with --lodo and several --train-seeds: leave out the ensemble (the mean of the seeds' models)")
	fl.StringVar(&l.hybridGrid, "hybrid-grid", train.DefaultHybridGrid, "with --lodo: grid the hybrid is tuned over on the training dataset's val split")
}

// parseDatasets reads --corpus entries of --lodo: NAME=DIR starts a
// dataset, a bare DIR adds a folder to the dataset before it (so
// `--corpus a=x,y --corpus b=z` is two datasets).
func parseDatasets(entries []string) (names []string, dirs [][]string, err error) {
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		name, dir, named := strings.Cut(e, "=")
		switch {
		case named && (name == "" || dir == ""):
			return nil, nil, badInput("--corpus %q: want NAME=DIR", e)
		case named:
			if slices.Contains(names, name) {
				return nil, nil, badInput("--corpus: dataset %s given twice", name)
			}
			names, dirs = append(names, name), append(dirs, []string{dir})
		case len(names) == 0:
			return nil, nil, badInput("--corpus %q: with --lodo the first folder needs a dataset name, NAME=DIR", e)
		default:
			dirs[len(dirs)-1] = append(dirs[len(dirs)-1], e)
		}
	}
	if len(names) < 2 {
		return nil, nil, badInput("--lodo needs at least two datasets (--corpus NAME=DIR,... per dataset), got %d", len(names))
	}
	return names, dirs, nil
}

// runLODO is `triage cv --lodo`.
func runLODO(cmd *cobra.Command, f *trainFlags, l *lodoFlags, ps policy.ParamSet, seeds, resamples int, budgets []int, jsonFile string) error {
	names, groups, err := parseDatasets(f.corpus)
	if err != nil {
		return err
	}
	if len(ps) > 0 {
		return badInput("--params: with --lodo every baseline is tuned on the training dataset's val split")
	}
	var tseeds []uint64
	if l.trainSeeds != "" {
		is, err := parseInts("train-seeds", l.trainSeeds)
		if err != nil {
			return err
		}
		for _, s := range is {
			tseeds = append(tseeds, uint64(s))
		}
	}
	if _, err := policy.ParseGrid(l.hybridGrid); err != nil {
		return badInput("--hybrid-grid: %v", err)
	}
	f.corpus = slices.Concat(groups...)
	_, o, be, err := trainSetup(f)
	if err != nil {
		return err
	}
	defer be.Finalize()
	ds, err := train.FolderDatasets(names, groups)
	if err != nil {
		return badInput("%v", err)
	}
	for i := range ds {
		if ds[i].Record, err = train.RecordSources(groups[i]); err != nil {
			return err
		}
	}
	env := train.Env{Backend: be, Out: f.out, Versions: trainVersions(), BuildQwen3: train.BuildQwen3, Command: commandLine()}
	lo := train.LODOOptions{Train: o, TrainSeeds: tseeds, Baselines: policy.Baselines, HybridGrid: l.hybridGrid,
		NoHybrid: l.noHybrid, NoEnsemble: l.noEnsemble, AllSplits: l.allSplits, Seeds: seeds, Budgets: budgets, Resamples: resamples}
	dirs, err := train.LeaveOneDatasetOut(cmd.Context(), ds, lo, env)
	if errors.Is(err, train.ErrNoValFix) {
		return badInput("%v", err)
	}
	if err != nil {
		return err
	}
	if jsonFile != "" {
		if err := report.WriteJSONFile(jsonFile, map[string]any{"lodo": dirs}); err != nil {
			return err
		}
	}
	if jsonFlag(cmd) {
		return printJSON(cmd.OutOrStdout(), map[string]any{"lodo": dirs})
	}
	for _, d := range dirs {
		d.WriteMarkdown(cmd.OutOrStdout(), strconv.Itoa(slices.Max(budgets)))
	}
	return nil
}
