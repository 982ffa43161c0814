package main

import (
	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/policy"
	"triage/search/eval"
	"triage/search/eval/report"
)

type tuneFlags struct {
	corpus, split, policy, grid, metric, out, checkpoint string
	seeds, workers                                       int
}

func newTuneCmd() *cobra.Command {
	var f tuneFlags
	c := &cobra.Command{
		Use:   "tune",
		Short: "Choose a policy's hyperparameters on the validation split by replay",
		Long: `tune replays one policy with every point of a hyperparameter grid on the
validation split and keeps the point with the lowest E[T] (--metric ET) or the
highest AUSC at the largest budget (--metric AUSC). The choice is merged into
the JSON file --out, which 'triage eval --params' reads. Tuning on the test
split is refused.`,
		Example: `  triage tune --corpus out/corpus --policy rex --grid C=1,5,10,20 --out out/tuned.json
  triage tune --corpus out/corpus --policy uct --grid 'C=0.5,0.7,0.9;beta=0.6,0.8' --metric AUSC --out out/tuned.json
  triage tune --corpus out/corpus --policy hybrid --grid 'C=0.25,1,4;temp=0.5,1,2' --out out/tuned.json`,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTune(cmd, &f) },
	}
	fl := c.Flags()
	fl.StringVar(&f.corpus, "corpus", "", "corpus folders (comma-separated) holding Parquet shards (required)")
	fl.StringVar(&f.split, "split", corpus.SplitVal, "split to tune on: val (or train); never test")
	fl.StringVar(&f.policy, "policy", "", "the policy to tune, e.g. rex (required)")
	fl.StringVar(&f.grid, "grid", "", "grid, e.g. 'C=1,5,10,20' or 'C=0.5,0.7;beta=0.8' (required)")
	fl.StringVar(&f.metric, "metric", "ET", "selection metric: ET (lower is better) or AUSC (higher is better)")
	fl.StringVar(&f.out, "out", "", "JSON file of chosen hyperparameters, merged if it exists (required)")
	fl.IntVar(&f.seeds, "seeds", 10, "seeds per stochastic policy")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint of the hybrid policy (default: the embedded default)")
	fl.IntVar(&f.workers, "workers", 0, "parallel replays"+workersZero)
	return c
}

// tuneFlagNames are the flags of report.TuneOptions' fields.
var tuneFlagNames = commonFlags.with(flagNames{"Policy": "--policy", "Points": "--grid", "Metric": "--metric",
	"Seeds": "--seeds"})

func runTune(cmd *cobra.Command, f *tuneFlags) error {
	o := report.TuneOptions{Corpus: splitList(f.corpus), CorpusName: f.corpus, Split: f.split, Policy: f.policy,
		Metric: eval.Metric(f.metric), Out: f.out, Seeds: f.seeds, Workers: f.workers, JSON: jsonFlag(cmd)}
	if f.grid != "" {
		var err error
		if o.Points, err = policy.ParseGrid(f.grid); err != nil {
			return badInput("--grid: %v", err)
		}
	}
	if err := o.Validate(); err != nil {
		return tuneFlagNames.flagged(err)
	}
	scorer, free, err := learnedScorer([]string{f.policy}, f.checkpoint)
	defer free()
	if err != nil {
		return err
	}
	o.Scorer = scorer
	return tuneFlagNames.flagged(report.Tune(cmd.Context(), cmd.OutOrStdout(), o))
}
