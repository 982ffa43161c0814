package experiment

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"triage/corpus"
	"triage/model"
	"triage/policy"
	"triage/train"
)

// FoldSplit gives fold i's three sets of trees: its model trains on the
// other folds' trees outside the val split, chooses its checkpoint on their
// val-split trees, and is scored on fold i's trees (of every split).
func FoldSplit(folds map[string]int, i int) (train, val, heldOut func(*corpus.Tree) bool) {
	heldOut = func(t *corpus.Tree) bool { return folds[t.TaskID] == i }
	train = func(t *corpus.Tree) bool { return !heldOut(t) && t.Split != corpus.SplitVal }
	val = func(t *corpus.Tree) bool { return !heldOut(t) && t.Split == corpus.SplitVal }
	return train, val, heldOut
}

// FilterSource keeps the trees of Src for which Keep is true.
type FilterSource struct {
	Src  train.Source
	Keep func(*corpus.Tree) bool
}

// Trees implements Source.
func (f FilterSource) Trees(ctx context.Context, fn func(*corpus.Tree) error) error {
	return f.Src.Trees(ctx, func(t *corpus.Tree) error {
		if !f.Keep(t) {
			return nil
		}
		return fn(t)
	})
}

// CVOptions configure CrossValidate.
type CVOptions struct {
	Folds int
	// Seed assigns tasks to folds.
	Seed uint64
	// Train are the training options of every fold's model.
	Train train.Options
	// Baselines are the baseline policies evaluated beside the learned one,
	// with their hyperparameters.
	Baselines []string
	Params    policy.ParamSet
	// Seeds of stochastic baselines; Budgets of S/C/AUSC; Resamples of the
	// bootstrap.
	Seeds     int
	Budgets   []int
	Resamples int
	// Learned holds extra learned-policy variants to evaluate with each
	// fold's model (ablations of the ranking rule), by name.
	Learned map[string][]policy.LearnedOption
}

// CVFold is one fold's record.
type CVFold struct {
	Fold       int               `json:"fold"`
	Tasks      int               `json:"heldout_tasks"`
	Trees      int               `json:"heldout_trees"`
	Checkpoint string            `json:"checkpoint"`
	Val        *train.Validation `json:"val"`
	LearnedET  float64           `json:"learned_et"`
}

// CVResult pools the held-out outcomes of every fold per policy.
type CVResult struct {
	Folds    []CVFold                    `json:"folds"`
	Outcomes map[string][]policy.Outcome `json:"outcomes"`
	Summary  map[string]policy.Summary   `json:"summary"`
	Order    []string                    `json:"order"`
	Tasks    int                         `json:"tasks"`
	Trees    int                         `json:"trees"`
}

// CrossValidate trains one model per fold of tasks and evaluates it, with
// every baseline, on that fold's held-out tasks only: fold i trains on the
// other folds' trees outside the val split, selects its checkpoint on their
// val-split trees, and is scored on fold i's trees of every split. The
// outcomes of all folds are pooled per policy and summarized with standard
// errors from a bootstrap clustered by task.
func CrossValidate(ctx context.Context, dirs []string, o CVOptions, env train.Env) (*CVResult, error) {
	if o.Folds < 2 {
		return nil, fmt.Errorf("cross-validation: %d folds, want ≥ 2", o.Folds)
	}
	if o.Seeds <= 0 {
		o.Seeds = 10
	}
	if len(o.Budgets) == 0 {
		o.Budgets = []int{4, 8, 16, 36}
	}
	if o.Resamples <= 0 {
		o.Resamples = 1000
	}
	log := env.Logger
	if log == nil {
		log = slog.Default()
	}
	all := train.ShardSource{Dirs: dirs}
	var taskIDs []string
	if err := all.Trees(ctx, func(t *corpus.Tree) error { taskIDs = append(taskIDs, t.TaskID); return nil }); err != nil {
		return nil, fmt.Errorf("cross-validation: %w", err)
	}
	folds := train.Folds(taskIDs, o.Folds, o.Seed)
	res := &CVResult{Outcomes: map[string][]policy.Outcome{}, Summary: map[string]policy.Summary{}, Tasks: len(folds)}
	res.Order = append(append([]string{"learned"}, sortedKeys(o.Learned)...), o.Baselines...)
	for i := 0; i < o.Folds; i++ {
		f, err := cvFold(ctx, i, all, folds, o, env, res.Outcomes)
		if err != nil {
			return nil, err
		}
		res.Trees += f.Trees
		res.Folds = append(res.Folds, f)
		log.Info("cross-validation: fold done", "fold", i, "heldout_tasks", f.Tasks, "learned_et", fmt.Sprintf("%.2f", f.LearnedET))
	}
	for name, outs := range res.Outcomes {
		sm, err := policy.Summarize(outs, o.Budgets, o.Resamples, 7)
		if err != nil {
			return nil, fmt.Errorf("cross-validation %s: %w", name, err)
		}
		res.Summary[name] = sm
	}
	return res, nil
}

// cvFold trains fold i's model (on the other folds' trees outside the val
// split, its checkpoint chosen on their val-split trees) and replays it,
// its variants (o.Learned) and every baseline on fold i's trees, adding
// the outcomes to outcomes per policy.
func cvFold(ctx context.Context, i int, all train.ShardSource, folds map[string]int, o CVOptions, env train.Env,
	outcomes map[string][]policy.Outcome) (CVFold, error) {
	log := env.Logger
	if log == nil {
		log = slog.Default()
	}
	trainOf, valOf, in := FoldSplit(folds, i)
	fenv := env
	fenv.Out = filepath.Join(env.Out, "fold-"+strconv.Itoa(i))
	fenv.Train = FilterSource{all, trainOf}
	fenv.Val = FilterSource{all, valOf}
	fenv.Resume = env.Resume && train.Started(fenv.Out)
	log.Info("cross-validation: training", "fold", i, "of", o.Folds, "out", fenv.Out)
	run, err := train.Train(ctx, o.Train, fenv)
	if err != nil {
		return CVFold{}, fmt.Errorf("cross-validation fold %d: %w", i, err)
	}
	held, err := collect(ctx, FilterSource{all, in})
	if err != nil {
		return CVFold{}, fmt.Errorf("cross-validation fold %d: %w", i, err)
	}
	f := CVFold{Fold: i, Trees: len(held), Checkpoint: fenv.Out, Val: run.Best}
	tasks := map[string]bool{}
	for _, t := range held {
		tasks[t.TaskID] = true
	}
	f.Tasks = len(tasks)
	b, err := model.LoadCheckpoint(fenv.Out)
	if err != nil {
		return CVFold{}, fmt.Errorf("cross-validation fold %d: %w", i, err)
	}
	sc, err := b.Scorer(env.Backend, 64)
	if err != nil {
		return CVFold{}, err
	}
	defer sc.Close()
	variants := map[string][]policy.LearnedOption{"learned": nil}
	for k, v := range o.Learned {
		variants[k] = v
	}
	for name, opts := range variants {
		outs, err := replayLearned(ctx, sc, held, append(slices.Clone(opts), policy.LearnedName(name))...)
		if err != nil {
			return CVFold{}, fmt.Errorf("cross-validation fold %d: %w", i, err)
		}
		outcomes[name] = append(outcomes[name], outs...)
		if name == "learned" {
			f.LearnedET = meanT(outs)
		}
	}
	for _, name := range o.Baselines {
		outs, err := replayBaseline(ctx, held, name, o.Params[name], o.Budgets, o.Seeds, 0)
		if err != nil {
			return CVFold{}, fmt.Errorf("cross-validation fold %d %w", i, err)
		}
		outcomes[name] = append(outcomes[name], outs...)
	}
	return f, nil
}

func sortedKeys(m map[string][]policy.LearnedOption) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func meanT(outs []policy.Outcome) float64 {
	var s float64
	n := 0
	for _, o := range outs {
		if o.Solved {
			s += float64(o.T)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// collect reads the trees of src into memory (one fold's held-out trees).
func collect(ctx context.Context, src train.Source) ([]*corpus.Tree, error) {
	var out []*corpus.Tree
	err := src.Trees(ctx, func(t *corpus.Tree) error { out = append(out, t); return nil })
	return out, err
}

// replayLearned replays the learned policy (scores precomputed per tree)
// on every tree (eval.Replay with seed 1).
func replayLearned(ctx context.Context, sc *model.Scorer, trees []*corpus.Tree, opts ...policy.LearnedOption) ([]policy.Outcome, error) {
	outs, err := ReplayScored(ctx, sc, trees, func(s policy.Scorer) (policy.Policy, error) { return policy.NewLearned(s, opts...) })
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}
