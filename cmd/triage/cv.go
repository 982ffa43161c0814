package main

import (
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"triage/search/eval"
	"triage/search/eval/report"
	"triage/train"
)

func newCVCmd() *cobra.Command {
	f := &trainFlags{}
	var folds, seeds, resamples int
	var foldSeed uint64
	var params, budgets, jsonFile string
	var ablations bool
	var lodo lodoFlags
	c := &cobra.Command{
		Use:   "cv",
		Short: "Cross-validate the learned policy by task: train per fold, score held-out tasks beside every baseline",
		Long: `cv splits the corpus's tasks into --folds folds (by a seeded hash, so every
tree of a task lands in one fold). For each fold it trains a model on the
other folds' trees outside the val split, picks the checkpoint by E[T] on
their val-split trees, and replays that model and every baseline on the
held-out fold's trees only. Outcomes of all folds are pooled per policy:
E[T], tokens, S(B), C(B), AUSC(B) with standard errors from a bootstrap
clustered by task. A bundled test split has 15 tasks, too few to separate
policies; cross-validation by task uses every task once as held-out data.

Training flags are those of 'triage train'; --out holds fold-N/ checkpoints.
--ablations also scores each fold's model by p1 alone and by ranking within
each depth (CodeTriage Table 1).

--lodo is leave-one-dataset-out, the cross-dataset judge: --corpus names
each dataset (NAME=DIR[,DIR...], repeated). For every ordered pair it
trains on one dataset's train split (checkpoint chosen on its val split),
tunes every baseline and the hybrid on the same val split, and scores
learned, hybrid and the tuned baselines on the other dataset's test split
(--all-splits: every split), one model per --train-seeds seed, with the
spread over seeds and the paired comparison against every baseline.`,
		Example: `  triage cv --corpus out/full --folds 5 --out cv/
  triage cv --corpus out/full --folds 5 --params tuned.json --json-file cv.json --out cv/
  triage cv --lodo --corpus bundled=out/b1,out/b5 --corpus mbpp=out/m --train-seeds 1,2,3 --out lodo/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if folds < 2 && !lodo.on {
				return badInput("--folds must be ≥ 2")
			}
			if seeds < 1 || resamples < 1 {
				return badInput("--seeds and --bootstrap must be ≥ 1")
			}
			bs, err := eval.ParseBudgets("budgets", budgets)
			if err != nil {
				return err
			}
			ps, err := eval.LoadParams("--params", params)
			if err != nil {
				return err
			}
			if lodo.on {
				return runLODO(cmd, f, &lodo, ps, seeds, resamples, bs, jsonFile)
			}
			res, err := train.CVCommand(cmd.Context(), train.CVConfig{Setup: f.Setup, Folds: folds, FoldSeed: foldSeed,
				Params: ps, Seeds: seeds, Resamples: resamples, Budgets: bs, Ablations: ablations,
				Progress: !f.noProgress && term.IsTerminal(int(os.Stderr.Fd())), Versions: trainVersions()})
			if err != nil {
				return err
			}
			js := map[string]any{"report": report.JSON(res.Report), "folds": res.Folds, "paired": res.Paired}
			if jsonFile != "" {
				if err := report.WriteJSONFile(jsonFile, map[string]any{"report": js["report"], "folds": res.Folds, "paired": res.Paired, "outcomes": res.Outcomes}); err != nil {
					return err
				}
			}
			return printResult(cmd, js, res.WriteText)
		},
	}
	addTrainFlags(c, f)
	fl := c.Flags()
	fl.IntVar(&folds, "folds", 5, "number of folds of tasks")
	fl.Uint64Var(&foldSeed, "fold-seed", 1, "seed of the assignment of tasks to folds")
	fl.StringVar(&params, "params", "", "baseline hyperparameters (JSON from 'triage tune')")
	fl.StringVar(&budgets, "budgets", "4,8,16,36", eval.BudgetsUsage)
	fl.IntVar(&seeds, "seeds", 10, "seeds per stochastic baseline")
	fl.IntVar(&resamples, "bootstrap", 1000, "bootstrap resamples of tasks")
	fl.StringVar(&jsonFile, "json-file", "", "also write the JSON result to this file")
	fl.BoolVar(&ablations, "ablations", false, "also score each fold's model by p1 alone and within depths")
	lodo.register(c)
	return c
}
