package main

import (
	"io"

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

// runLODO is `triage cv --lodo`.
func runLODO(cmd *cobra.Command, f *trainFlags, l *lodoFlags, ps policy.ParamSet, seeds, resamples int, budgets []int, jsonFile string) error {
	dirs, err := train.LODOCommand(cmd.Context(), train.LODOConfig{Setup: f.Setup, Params: ps, TrainSeedList: l.trainSeeds,
		LODO: train.LODOOptions{HybridGrid: l.hybridGrid, NoHybrid: l.noHybrid, NoEnsemble: l.noEnsemble, AllSplits: l.allSplits,
			Seeds: seeds, Budgets: budgets, Resamples: resamples},
		Versions: trainVersions(), Command: commandLine()})
	if err != nil {
		return err
	}
	if jsonFile != "" {
		if err := report.WriteJSONFile(jsonFile, map[string]any{"lodo": dirs}); err != nil {
			return err
		}
	}
	return printResult(cmd, map[string]any{"lodo": dirs}, func(w io.Writer) error { return train.WriteLODO(w, dirs, budgets) })
}
