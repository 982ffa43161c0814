package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"triage/policy"
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
			bs, err := parseBudgets("budgets", budgets)
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
			dirs, o, be, err := trainSetup(f)
			if err != nil {
				return err
			}
			defer be.Finalize()
			env := train.Env{Backend: be, Out: f.out, Versions: trainVersions(), BuildQwen3: train.BuildQwen3}
			if !f.noProgress && term.IsTerminal(int(os.Stderr.Fd())) {
				rep := train.NewReporter(true)
				env.Progress = rep.Update
				defer rep.Finish()
			}
			cvo := train.CVOptions{Folds: folds, Seed: foldSeed, Train: o, Baselines: policy.Baselines, Params: ps,
				Seeds: seeds, Budgets: bs, Resamples: resamples}
			if ablations {
				cvo.Learned = map[string][]policy.LearnedOption{
					"learned-p1":        {policy.ScoreByP1()},
					"learned-per-depth": {policy.RankWithinDepth()},
				}
			}
			res, err := train.CrossValidate(cmd.Context(), dirs, cvo, env)
			if err != nil {
				return err
			}
			rep := &report.Report{Title: "triage cv", Corpus: strings.Join(dirs, ","),
				Split: fmt.Sprintf("all, %d-fold cross-validation by task (each fold's model scored on its held-out tasks)", folds),
				Trees: res.Trees, Tasks: res.Tasks, Budgets: bs}
			for _, name := range res.Order {
				n := 1
				if policy.Stochastic(name) && name != "learned" {
					n = seeds
				}
				rep.Policies = append(rep.Policies, report.PolicyResult{Name: name, Seeds: n, Params: ps[name], Summary: res.Summary[name]})
			}
			paired := train.PairedWithBaselines(res.Order, res.Outcomes, resamples, f.seed)
			if jsonFile != "" {
				if err := report.WriteJSONFile(jsonFile, map[string]any{"report": report.JSON(rep), "folds": res.Folds, "paired": paired, "outcomes": res.Outcomes}); err != nil {
					return err
				}
			}
			if jsonFlag(cmd) {
				return printJSON(os.Stdout, map[string]any{"report": report.JSON(rep), "folds": res.Folds, "paired": paired})
			}
			train.WriteFolds(os.Stdout, res.Folds)
			if err := report.WriteMarkdown(os.Stdout, rep); err != nil {
				return err
			}
			train.WritePaired(os.Stdout, paired)
			return nil
		},
	}
	addTrainFlags(c, f)
	fl := c.Flags()
	fl.IntVar(&folds, "folds", 5, "number of folds of tasks")
	fl.Uint64Var(&foldSeed, "fold-seed", 1, "seed of the assignment of tasks to folds")
	fl.StringVar(&params, "params", "", "baseline hyperparameters (JSON from 'triage tune')")
	fl.StringVar(&budgets, "budgets", "4,8,16,36", budgetsUsage)
	fl.IntVar(&seeds, "seeds", 10, "seeds per stochastic baseline")
	fl.IntVar(&resamples, "bootstrap", 1000, "bootstrap resamples of tasks")
	fl.StringVar(&jsonFile, "json-file", "", "also write the JSON result to this file")
	fl.BoolVar(&ablations, "ablations", false, "also score each fold's model by p1 alone and within depths")
	lodo.register(c)
	return c
}
