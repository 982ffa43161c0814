package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"triage/corpus"
	"triage/policy"
	"triage/search/eval/report"
	"triage/train"
)

// CVConfig is one `triage cv` by task: the training setup, the folds, the
// baselines' params and seeds, the budgets, the bootstrap, and whether to
// score the ablations of each fold's model too.
type CVConfig struct {
	train.Setup
	Folds            int
	FoldSeed         uint64
	Params           policy.ParamSet
	Seeds, Resamples int
	Budgets          []int
	Ablations        bool
	Progress         bool
	// Resume continues each fold whose folder holds a run's saved state.
	Resume   bool
	Versions map[string]string
}

// CVReport is what `triage cv` prints: the folds, the pooled report of
// every policy, the paired comparison with each baseline, and the outcomes
// behind them.
type CVReport struct {
	Report   *report.Report
	Folds    []CVFold
	Paired   []policy.Paired
	Outcomes map[string][]policy.Outcome
}

// CVCommand opens c's setup and cross-validates by task (CrossValidate),
// pooling the held-out outcomes of every fold per policy.
func CVCommand(ctx context.Context, c CVConfig) (*CVReport, error) {
	dirs, be, err := c.Open()
	if err != nil {
		return nil, err
	}
	defer be.Finalize()
	env := train.Env{Backend: be, Out: c.Out, Versions: c.Versions, BuildQwen3: train.BuildQwen3, Resume: c.Resume}
	if c.Progress {
		rep := train.NewReporter(true)
		env.Progress = rep.Update
		defer rep.Finish()
	}
	cvo := CVOptions{Folds: c.Folds, Seed: c.FoldSeed, Train: c.Options, Baselines: policy.Baselines, Params: c.Params,
		Seeds: c.Seeds, Budgets: c.Budgets, Resamples: c.Resamples}
	if c.Ablations {
		cvo.Learned = map[string][]policy.LearnedOption{
			"learned-p1":        {policy.ScoreByP1()},
			"learned-per-depth": {policy.RankWithinDepth()},
		}
	}
	res, err := CrossValidate(ctx, dirs, cvo, env)
	if err != nil {
		return nil, err
	}
	rep := &report.Report{Title: "triage cv", Corpus: strings.Join(dirs, ","),
		Split: fmt.Sprintf("all, %d-fold cross-validation by task (each fold's model scored on its held-out tasks)", c.Folds),
		Trees: res.Trees, Tasks: res.Tasks, Budgets: c.Budgets}
	for _, name := range res.Order {
		n := 1
		if policy.Stochastic(name) && name != "learned" {
			n = c.Seeds
		}
		rep.Policies = append(rep.Policies, report.PolicyResult{Name: name, Seeds: n, Params: c.Params[name], Summary: res.Summary[name]})
	}
	return &CVReport{Report: rep, Folds: res.Folds, Outcomes: res.Outcomes,
		Paired: PairedWithBaselines(res.Order, res.Outcomes, c.Resamples, c.Options.Seed)}, nil
}

// WriteText writes the folds, the pooled table and the paired comparison.
func (r *CVReport) WriteText(w io.Writer) error {
	WriteFolds(w, r.Folds)
	if err := report.WriteMarkdown(w, r.Report); err != nil {
		return err
	}
	WritePaired(w, r.Paired)
	return nil
}

// LODOConfig is one `triage cv --lodo`: the training setup (its Corpus is
// set to every dataset's folders), the datasets (Names, and the folders of
// each in Folders), and LODOOptions' settings (Train and Baselines are set
// here). Every baseline is tuned on the training dataset's val split.
type LODOConfig struct {
	train.Setup
	Names    []string
	Folders  [][]string
	LODO     LODOOptions
	Versions map[string]string
	Command  string
	// Resume continues each model whose folder holds a run's saved state.
	Resume bool
}

// LODOResult is the judge's record: every direction and, when every
// dataset was held out once, the pooled row.
type LODOResult struct {
	Directions []LODODirection `json:"lodo"`
	Pooled     *LODOPooled     `json:"pooled,omitempty"`
}

// LODOCommand checks c (the datasets, the hybrid grid), opens the setup
// over every dataset's folders and runs
// LeaveOneDatasetOut (each dataset held out against the union of the
// others, or every ordered pair) and pools the directions.
func LODOCommand(ctx context.Context, c LODOConfig) (LODOResult, error) {
	dirs, err := lodoDirections(ctx, c)
	if err != nil {
		return LODOResult{}, err
	}
	return LODOResult{Directions: dirs, Pooled: PoolLODO(dirs, c.LODO)}, nil
}

func lodoDirections(ctx context.Context, c LODOConfig) ([]LODODirection, error) {
	names, groups := c.Names, c.Folders
	if len(names) < 2 || len(groups) != len(names) {
		return nil, corpus.Invalid("{Names}: want at least two datasets, each with its folders, got %d", len(names))
	}
	if c.LODO.HybridGrid != "" {
		if _, err := policy.ParseGrid(c.LODO.HybridGrid); err != nil {
			return nil, corpus.Invalid("{LODO.HybridGrid}: %v", err)
		}
	}
	c.Corpus = slices.Concat(groups...)
	_, be, err := c.Open()
	if err != nil {
		return nil, err
	}
	defer be.Finalize()
	ds, err := FolderDatasets(names, groups)
	if err != nil {
		return nil, corpus.BadInput("%v", err)
	}
	for i := range ds {
		if ds[i].Record, err = train.RecordSources(groups[i]); err != nil {
			return nil, err
		}
	}
	env := train.Env{Backend: be, Out: c.Out, Versions: c.Versions, BuildQwen3: train.BuildQwen3, Command: c.Command, Resume: c.Resume}
	lo := c.LODO
	lo.Train = c.Options
	dirs, err := LeaveOneDatasetOut(ctx, ds, lo, env)
	if errors.Is(err, ErrNoValFix) {
		return nil, corpus.BadInput("%v", err)
	}
	return dirs, err
}
