package main

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"triage/checkpoints"
	"triage/corpus"
	"triage/policy"
	"triage/search/eval"
	"triage/search/eval/report"
)

type evalFlags struct {
	corpus, split, policies, checkpoint, params, budgets string
	scoreBy                                              string
	perDepth, bySource                                   bool
	reportPath, jsonFile, viewTree, viewPolicy           string
	paired                                               string
	jsonToFile                                           bool // --json FILE: JSON to FILE, table on stdout
	budget, seeds, resamples, workers                    int
}

func newEvalCmd() *cobra.Command {
	var f evalFlags
	c := &cobra.Command{
		Use:   "eval",
		Short: "Replay search policies on a corpus split: E[T], tokens, S(B), C(B), AUSC(B)",
		Long: `eval replays every policy on every tree of one split of a corpus and prints
a Markdown table (or the JSON summary with --json): E[T], the mean expansions
to the first fix over trees that contain one; output tokens through the first
fix; S(B), C(B) and AUSC(B) at each budget; each with a standard error from a
bootstrap clustered by task. Stochastic policies are averaged over --seeds.
--report writes a self-contained HTML report with the success curves and a
tree viewer. Hyperparameters come from --params (written by 'triage tune' on
the validation split).`,
		Example: `  triage eval --corpus out/corpus --split test --report out/eval.html
  triage eval --corpus out/corpus --policies rex,uct --params out/tuned.json --json
  triage eval --corpus out/corpus --split test --paired learned,hybrid  # tree-by-tree ratios against every other policy
  triage eval --corpus out/corpus --split test --json out/eval.json   # table on stdout, JSON to the file
  triage eval --corpus corpus/bundled/test-trees,corpus/mbpp/test-trees --paired learned --by-source  # a row per source`,
		Args: jsonFileArgs("--corpus DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if f.jsonFile != "" && f.jsonFile != args[0] {
					return badInput("--json %s and --json-file %s disagree", args[0], f.jsonFile)
				}
				f.jsonFile, f.jsonToFile = args[0], true
			}
			return runEval(cmd, &f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.corpus, "corpus", "", "corpus folders (comma-separated) holding Parquet shards (required)")
	fl.StringVar(&f.split, "split", corpus.SplitTest, "split to evaluate: train, val or test")
	fl.StringVar(&f.policies, "policies", "learned,hybrid,"+strings.Join(policy.Baselines, ","), "comma-separated policies (learned and hybrid use --checkpoint, default the embedded one)")
	fl.StringVar(&f.scoreBy, "score", "s", "learned policy's ranking score: s (CodeTriage's s(e)) or p1 (ablation: P(t = 1) alone)")
	fl.BoolVar(&f.perDepth, "rank-within-depth", false, "ablation: the learned policy ranks edges only within one depth, shallowest depth first")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint of the learned policy (default: the embedded default)")
	fl.StringVar(&f.params, "params", "", "JSON file of hyperparameters per policy (from 'triage tune')")
	fl.StringVar(&f.budgets, "budgets", "4,8,16,36", budgetsUsage)
	fl.IntVar(&f.budget, "budget", 0, fmt.Sprintf("cap on expansions per replay, at most %d (0: until the first fix, needed for E[T])", eval.MaxBudget))
	fl.IntVar(&f.seeds, "seeds", 10, "seeds per stochastic policy")
	fl.IntVar(&f.resamples, "bootstrap", 1000, "bootstrap resamples of tasks for standard errors")
	fl.IntVar(&f.workers, "workers", 0, "parallel replays (0: one per CPU, or 32 with the learned policy)")
	fl.StringVar(&f.reportPath, "report", "", "write the HTML report to this file")
	fl.StringVar(&f.paired, "paired", "", "compare these policies (comma-separated, e.g. learned,hybrid) with every other one tree by tree: ratio of E[T] over the trees both solve, 95% interval")
	fl.BoolVar(&f.bySource, "by-source", false, "also a row per task source (the corpus rows' source): each --paired policy against the baseline with the lowest E[T] on that source's trees")
	fl.StringVar(&f.jsonFile, "json-file", "", "also write the JSON summary to this file")
	fl.StringVar(&f.viewTree, "view-tree", "", "tree id shown in the report's viewer (default: the first tree with a fix)")
	fl.StringVar(&f.viewPolicy, "view-policy", "", "policy shown in the viewer (default: learned if evaluated, else passrate)")
	return c
}

// evalFlagNames are the flags of the fields of report.RunOptions and of
// eval's policy list that errors name.
var evalFlagNames = commonFlags.with(flagNames{"Eval.Seeds": "--seeds", "Eval.Resamples": "--bootstrap",
	"Eval.MaxExpansions": "--budget", "Eval.Workers": "--workers", "Eval.Paired": "--paired", "Policies": "--policies",
	"Params": "--params", "ViewTree": "--view-tree", "ViewPolicy": "--view-policy"})

func runEval(cmd *cobra.Command, f *evalFlags) error {
	return evalFlagNames.flagged(evalHandler(cmd, f))
}

func evalHandler(cmd *cobra.Command, f *evalFlags) error {
	budgets, err := parseBudgets("budgets", f.budgets)
	if err != nil {
		return err
	}
	names := splitList(f.policies)
	if !cmd.Flags().Changed("policies") && f.checkpoint == "" {
		// The default list includes learned and hybrid: a build without an
		// embedded checkpoint evaluates the baselines and says why they are absent.
		if _, err := checkpoints.DefaultPath(); errors.Is(err, checkpoints.ErrNoDefault) {
			slog.Warn("policies learned and hybrid left out", "reason", noDefaultHint(err))
			names = slices.DeleteFunc(names, policy.NeedsScorer)
		}
	}
	o := report.RunOptions{Corpus: splitList(f.corpus), CorpusName: f.corpus, Split: f.split,
		Eval: eval.Options{Budgets: budgets, MaxExpansions: f.budget, Seeds: f.seeds, Resamples: f.resamples,
			Workers: f.workers, Paired: splitList(f.paired), BySource: f.bySource},
		ReportPath: f.reportPath, JSONFile: f.jsonFile, JSON: jsonFlag(cmd) && !f.jsonToFile,
		ViewTree: f.viewTree, ViewPolicy: f.viewPolicy}
	if err := o.Validate(); err != nil {
		return err
	}
	if len(names) == 0 {
		return badInput("--policies is empty")
	}
	ps, err := eval.LoadParams(f.params)
	if err != nil {
		return err
	}
	var lopts []policy.LearnedOption
	switch f.scoreBy {
	case "s":
	case "p1":
		lopts = append(lopts, policy.ScoreByP1())
	default:
		return badInput("--score %q: want s or p1", f.scoreBy)
	}
	if f.perDepth {
		lopts = append(lopts, policy.RankWithinDepth())
	}
	if !slices.Contains(names, "learned") && len(lopts) > 0 {
		return badInput("--score and --rank-within-depth change the learned policy, which --policies leaves out")
	}
	for _, n := range o.Eval.Paired {
		if !slices.Contains(names, n) {
			return badInput("--paired %s: not among --policies %s", n, strings.Join(names, ","))
		}
	}
	if err := eval.CheckPolicies(names, ps); err != nil {
		return err
	}
	scorer, free, err := learnedScorer(names, f.checkpoint)
	defer free()
	if err != nil {
		return err
	}
	o.Policies, free, err = eval.BuildPolicies(names, ps, scorer, lopts...)
	defer free()
	if err != nil {
		return err
	}
	return report.Run(cmd.Context(), cmd.OutOrStdout(), o)
}
