package experiment

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"triage/corpus"
	"triage/model"
	"triage/policy"
	"triage/search/eval"
	"triage/train"
)

// Dataset is one named task source of a leave-one-dataset-out evaluation:
// its trees (every split).
type Dataset struct {
	Name string
	Src  train.Source
	// Record names the dataset's corpora in the checkpoints trained on it.
	Record train.SourceRecord
}

// FolderDatasets makes one Dataset per named group of corpus folders, the
// grouping `triage cv --lodo --corpus name=dir,dir` gives.
func FolderDatasets(names []string, dirs [][]string) ([]Dataset, error) {
	if len(names) != len(dirs) {
		return nil, fmt.Errorf("datasets: %d names for %d folder groups", len(names), len(dirs))
	}
	var out []Dataset
	for i, n := range names {
		if len(dirs[i]) == 0 {
			return nil, fmt.Errorf("dataset %s: no corpus folders", n)
		}
		out = append(out, Dataset{Name: n, Src: train.ShardSource{Dirs: dirs[i]}, Record: train.SourceRecord{Corpus: dirs[i]}})
	}
	return out, checkDatasets(out)
}

// SplitDatasets makes one Dataset per name from the trees of src, a tree
// belonging to the dataset that of(tree) names (trees it names no dataset
// are left out). With of reading the corpus's source column, one corpus
// folder holding every source splits the same way folder groups do.
func SplitDatasets(src train.Source, names []string, of func(*corpus.Tree) string) ([]Dataset, error) {
	var out []Dataset
	for _, n := range names {
		out = append(out, Dataset{Name: n, Src: FilterSource{src, func(t *corpus.Tree) bool { return of(t) == n }}})
	}
	return out, checkDatasets(out)
}

func checkDatasets(ds []Dataset) error {
	if len(ds) < 2 {
		return fmt.Errorf("leave-one-dataset-out: %d datasets, want ≥ 2", len(ds))
	}
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Name == "" || seen[d.Name] {
			return fmt.Errorf("leave-one-dataset-out: dataset name %q empty or given twice", d.Name)
		}
		seen[d.Name] = true
	}
	return nil
}

// ErrNoValFix is returned by LeaveOneDatasetOut for a training dataset
// whose val split holds no tree with a fix: nothing could be tuned on it.
var ErrNoValFix = errors.New("no val-split tree with a fix to tune on")

// DefaultGrids are the grids each baseline is tuned over on the training
// source's val split (by E[T]); a baseline absent here has no
// hyperparameter worth tuning and runs with its defaults.
var DefaultGrids = map[string]string{
	"rex":    "C=1,5,10,20",
	"uct":    "C=0.3,0.5,0.7,0.9,1.4",
	"abmcts": "beta=0,1",
	"bgmcts": "exploration_weight=0.5,1,2,4",
}

// DefaultHybridGrid is the grid the hybrid policy is tuned over, per
// trained model, on the training source's val split.
const DefaultHybridGrid = "C=0.25,0.5,1,2,4;temp=0.5,1,2;norm=0,1"

// LODOOptions configure LeaveOneDatasetOut.
type LODOOptions struct {
	// Train are the training options; Train.Seed is replaced by each of
	// TrainSeeds (default: Train.Seed alone).
	Train      train.Options
	TrainSeeds []uint64
	// Baselines (default policy.Baselines, every one) are tuned on the
	// training source's val split over Grids (default DefaultGrids) and
	// scored on the held-out source.
	Baselines []string
	Grids     map[string]string
	// HybridGrid tunes the hybrid policy (default DefaultHybridGrid); NoHybrid
	// leaves it out.
	HybridGrid string
	NoHybrid   bool
	// NoEnsemble leaves out the ensemble of the seeds' models.
	NoEnsemble bool
	// AllSplits scores every split of the held-out source; by default only
	// its test split.
	AllSplits bool
	// Pairs trains on each dataset alone and scores on each other one
	// (every ordered pair). By default each dataset is held out in turn and
	// the model trains on the union of all the others: the judge of a
	// policy meant for sources it has never seen. With two datasets the
	// two are the same.
	Pairs bool
	// Seeds of stochastic baselines; Budgets of S/C/AUSC; Resamples of the
	// bootstrap; Workers of the baseline replays (≤ 0: one per CPU).
	Seeds     int
	Budgets   []int
	Resamples int
	Workers   int
}

// withDefaults is o with every unset setting at its default, the one
// place LeaveOneDatasetOut and PoolLODO take them from.
func (o LODOOptions) withDefaults() LODOOptions {
	if len(o.TrainSeeds) == 0 {
		o.TrainSeeds = []uint64{o.Train.Seed}
	}
	if len(o.Baselines) == 0 {
		o.Baselines = policy.Baselines
	}
	if o.Seeds <= 0 {
		o.Seeds = 10
	}
	if len(o.Budgets) == 0 {
		o.Budgets = eval.DefaultBudgets
	}
	if o.Resamples <= 0 {
		o.Resamples = 1000
	}
	if o.Grids == nil {
		o.Grids = DefaultGrids
	}
	if o.HybridGrid == "" {
		o.HybridGrid = DefaultHybridGrid
	}
	return o
}

// LODORun is one trained model of one direction.
type LODORun struct {
	Seed       uint64            `json:"train_seed"`
	Checkpoint string            `json:"checkpoint"`
	Val        *train.Validation `json:"val"`
	BestStep   int               `json:"best_step"`
	// Hybrid holds the hybrid's hyperparameters chosen on val for this model.
	Hybrid  policy.Params             `json:"hybrid_params,omitempty"`
	Summary map[string]policy.Summary `json:"summary"`
	// Paired compares learned and hybrid with every baseline, tree by tree.
	Paired   []policy.Paired             `json:"paired"`
	Outcomes map[string][]policy.Outcome `json:"-"`
}

// LODODirection is training on one source and scoring on another.
type LODODirection struct {
	Train     string `json:"train"`
	Test      string `json:"test"`
	TestSplit string `json:"test_split"`
	Trees     int    `json:"heldout_trees"`
	FixTrees  int    `json:"heldout_trees_with_fix"`
	Tasks     int    `json:"heldout_tasks"`
	// Tuned holds each baseline's hyperparameters chosen on the training
	// source's val split; ValET every baseline's E[T] there (at its chosen
	// point), what a choice of the learned policy's settings compares its
	// runs' Val with: the held-out figures choose nothing.
	Tuned     map[string]policy.Params  `json:"tuned"`
	ValET     map[string]float64        `json:"val_et"`
	Baselines map[string]policy.Summary `json:"baselines"`
	Runs      []LODORun                 `json:"runs"`
	// Ensemble is the mean of the Runs' models (with more than one seed).
	Ensemble *LODORun                    `json:"ensemble,omitempty"`
	Spread   map[string]Spread           `json:"spread"`
	Outcomes map[string][]policy.Outcome `json:"-"`
}

// Spread summarizes one figure over the training seeds.
type Spread struct {
	Mean float64   `json:"mean"`
	SD   float64   `json:"sd"`
	Min  float64   `json:"min"`
	Max  float64   `json:"max"`
	Each []float64 `json:"each"`
}

// NewSpread summarizes xs (the sample standard deviation; 0 for one value).
func NewSpread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{Min: slices.Min(xs), Max: slices.Max(xs), Each: slices.Clone(xs)}
	for _, x := range xs {
		s.Mean += x
	}
	s.Mean /= float64(len(xs))
	if len(xs) > 1 {
		var v float64
		for _, x := range xs {
			v += (x - s.Mean) * (x - s.Mean)
		}
		s.SD = math.Sqrt(v / float64(len(xs)-1))
	}
	return s
}

// LeaveOneDatasetOut trains on each dataset in turn and scores on each
// other one: per direction, every setting is chosen on the training
// source alone (the model's checkpoint by E[T] on its val split, each
// baseline's and the hybrid's hyperparameters on the same val split), and
// the learned policy, the hybrid and every baseline are replayed on the
// held-out source's test split (every split with AllSplits), one model per
// training seed.
func LeaveOneDatasetOut(ctx context.Context, ds []Dataset, o LODOOptions, env train.Env) ([]LODODirection, error) {
	if err := checkDatasets(ds); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	hgrid, err := policy.ParseGrid(o.HybridGrid)
	if err != nil {
		return nil, fmt.Errorf("hybrid grid: %w", err)
	}
	log := env.Logger
	if log == nil {
		log = slog.Default()
	}
	var out []LODODirection
	type tuning struct {
		val   []*corpus.Tree
		tuned map[string]policy.Params
		valET map[string]float64
	}
	tuned := map[string]tuning{} // by training dataset: tuned once for all its directions
	for _, pl := range lodoPlans(ds, o.Pairs) {
		tr, te := pl.train, pl.test
		tu, ok := tuned[tr.Name]
		if !ok {
			val, err := collect(ctx, FilterSource{tr.Src, isSplit(corpus.SplitVal)})
			if err != nil {
				return nil, fmt.Errorf("dataset %s: %w", tr.Name, err)
			}
			params, valET, err := tuneBaselines(ctx, val, o)
			if err != nil {
				return nil, fmt.Errorf("dataset %s: %w", tr.Name, err)
			}
			tu = tuning{val, params, valET}
			tuned[tr.Name] = tu
		}
		d, err := lodoDirection(ctx, tr, te, tu.tuned, tu.val, hgrid, o, env, log)
		if err != nil {
			return nil, fmt.Errorf("train on %s, test on %s: %w", tr.Name, te.Name, err)
		}
		d.ValET = tu.valET
		out = append(out, *d)
	}
	return out, nil
}

// lodoPlan is one direction of the judge: the dataset trained (and tuned)
// on and the one scored.
type lodoPlan struct{ train, test Dataset }

// lodoPlans are the directions over ds: every ordered pair with pairs,
// else each dataset held out once against the union of the others.
func lodoPlans(ds []Dataset, pairs bool) []lodoPlan {
	pairs = pairs || len(ds) == 2 // the same directions, in the pairs' order
	var out []lodoPlan
	for i, te := range ds {
		if !pairs {
			others := slices.Delete(slices.Clone(ds), i, i+1)
			out = append(out, lodoPlan{train: UnionDataset(others), test: te})
			continue
		}
		for _, tr := range ds {
			if tr.Name != te.Name {
				out = append(out, lodoPlan{train: tr, test: te})
			}
		}
	}
	if pairs { // training source by training source, as the judge has always printed them
		slices.SortStableFunc(out, func(a, b lodoPlan) int { return datasetIndex(ds, a.train) - datasetIndex(ds, b.train) })
	}
	return out
}

func datasetIndex(ds []Dataset, d Dataset) int {
	return slices.IndexFunc(ds, func(x Dataset) bool { return x.Name == d.Name })
}

// UnionDataset is one dataset of all of ds's trees, named by their names
// joined with "+" (ds itself when it is one dataset).
func UnionDataset(ds []Dataset) Dataset {
	if len(ds) == 1 {
		return ds[0]
	}
	var names []string
	var srcs UnionSource
	var rec train.SourceRecord
	for _, d := range ds {
		names = append(names, d.Name)
		srcs = append(srcs, d.Src)
		rec.Corpus = append(rec.Corpus, d.Record.Corpus...)
	}
	return Dataset{Name: strings.Join(names, "+"), Src: srcs, Record: rec}
}

// UnionSource reads the trees of each of its sources in turn.
type UnionSource []train.Source

// Trees implements Source.
func (u UnionSource) Trees(ctx context.Context, fn func(*corpus.Tree) error) error {
	for _, s := range u {
		if err := s.Trees(ctx, fn); err != nil {
			return err
		}
	}
	return nil
}

func isSplit(split string) func(*corpus.Tree) bool {
	return func(t *corpus.Tree) bool { return t.Split == split }
}

func lodoDirection(ctx context.Context, tr, te Dataset, tuned map[string]policy.Params, val []*corpus.Tree,
	hgrid []policy.GridPoint, o LODOOptions, env train.Env, log *slog.Logger) (*LODODirection, error) {
	d := &LODODirection{Train: tr.Name, Test: te.Name, TestSplit: corpus.SplitTest, Tuned: tuned,
		Baselines: map[string]policy.Summary{}, Spread: map[string]Spread{}, Outcomes: map[string][]policy.Outcome{}}
	keep := isSplit(corpus.SplitTest)
	if o.AllSplits {
		d.TestSplit, keep = "all", func(*corpus.Tree) bool { return true }
	}
	held, err := collect(ctx, FilterSource{te.Src, keep})
	if err != nil {
		return nil, err
	}
	if len(held) == 0 {
		return nil, fmt.Errorf("no %s trees in %s", d.TestSplit, te.Name)
	}
	tasks := map[string]bool{}
	for _, t := range held {
		tasks[t.TaskID] = true
		if t.HasFix() {
			d.FixTrees++
		}
	}
	d.Trees, d.Tasks = len(held), len(tasks)
	for _, name := range o.Baselines {
		outs, err := replayBaseline(ctx, held, name, tuned[name], o.Budgets, o.Seeds, o.Workers)
		if err != nil {
			return nil, err
		}
		d.Outcomes[name] = outs
		if d.Baselines[name], err = policy.Summarize(outs, o.Budgets, o.Resamples, 7); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	figures := map[string][]float64{}
	for _, seed := range o.TrainSeeds {
		run, err := lodoRun(ctx, tr, seed, val, held, hgrid, o, env, log, d.Test)
		if err != nil {
			return nil, fmt.Errorf("train seed %d: %w", seed, err)
		}
		if err := d.summarize(run, seed, o); err != nil {
			return nil, err
		}
		for name, sum := range run.Summary {
			figures[name+" E[T]"] = append(figures[name+" E[T]"], sum.ET)
			figures[name+" tokens"] = append(figures[name+" tokens"], sum.Tokens)
			figures[name+" S"] = append(figures[name+" S"], sum.S[strconv.Itoa(slices.Max(o.Budgets))])
		}
		for _, p := range run.Paired {
			k := p.A + " / " + p.B
			figures[k] = append(figures[k], p.Ratio)
		}
		d.Runs = append(d.Runs, *run)
	}
	for k, xs := range figures {
		d.Spread[k] = NewSpread(xs)
	}
	if len(d.Runs) > 1 && !o.NoEnsemble {
		log.Info("leave-one-dataset-out: ensemble", "train", tr.Name, "test", te.Name, "models", len(d.Runs))
		ens, err := ensembleRun(ctx, d.Runs, val, held, hgrid, o, env)
		if err != nil {
			return nil, err
		}
		if err := d.summarize(ens, 1, o); err != nil {
			return nil, err
		}
		d.Ensemble = ens
	}
	return d, nil
}

// lodoPolicies are the scored policies of a run, in the order the report
// shows them.
var lodoPolicies = []string{"learned", "hybrid", "ensemble", "ensemble-hybrid"}

// summarize fills run's summaries and its paired comparisons against every
// baseline of d (bootstrap seeded by seed).
func (d *LODODirection) summarize(run *LODORun, seed uint64, o LODOOptions) error {
	for _, name := range lodoPolicies {
		if _, ok := run.Outcomes[name]; !ok {
			continue
		}
		outs := run.Outcomes[name]
		var err error
		if run.Summary[name], err = policy.Summarize(outs, o.Budgets, o.Resamples, 7); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, b := range o.Baselines {
			p, err := policy.ComparePaired(name, outs, b, d.Outcomes[b], o.Resamples, seed)
			if err != nil {
				continue // no tree solved by both: nothing to compare
			}
			run.Paired = append(run.Paired, p)
		}
	}
	return nil
}

// lodoRun trains one model on tr (train split; checkpoint chosen on val),
// tunes the hybrid on val with it and replays learned and hybrid on held.
func lodoRun(ctx context.Context, tr Dataset, seed uint64, val, held []*corpus.Tree, hgrid []policy.GridPoint,
	o LODOOptions, env train.Env, log *slog.Logger, test string) (*LODORun, error) {
	renv := env
	renv.Out = filepath.Join(env.Out, "lodo-"+tr.Name+"-to-"+test, "seed-"+strconv.FormatUint(seed, 10))
	renv.Train = FilterSource{tr.Src, isSplit(corpus.SplitTrain)}
	renv.Val = FilterSource{tr.Src, isSplit(corpus.SplitVal)}
	renv.Sources = tr.Record
	renv.Resume = env.Resume && train.Started(renv.Out)
	to := o.Train
	to.Seed = seed
	log.Info("leave-one-dataset-out: training", "train", tr.Name, "test", test, "seed", seed, "out", renv.Out)
	res, err := train.Train(ctx, to, renv)
	if err != nil {
		return nil, err
	}
	run := &LODORun{Seed: seed, Checkpoint: renv.Out, Val: res.Best, BestStep: res.BestStep,
		Summary: map[string]policy.Summary{}, Outcomes: map[string][]policy.Outcome{}}
	sc, err := loadScorer(renv.Out, env)
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	if err := scoreHeld(ctx, run, sc, val, held, hgrid, o, "learned", "hybrid"); err != nil {
		return nil, err
	}
	return run, nil
}

// loadScorer opens the checkpoint in dir for scoring.
func loadScorer(dir string, env train.Env) (*model.Scorer, error) {
	b, err := model.LoadCheckpoint(dir)
	if err != nil {
		return nil, err
	}
	return b.Scorer(env.Backend, 64)
}

// scoreHeld replays the learned policy over sc on held as learned, and
// (unless NoHybrid) the hybrid over sc, its constants chosen on val's trees
// with a fix, as hybrid; into run.
func scoreHeld(ctx context.Context, run *LODORun, sc policy.Scorer, val, held []*corpus.Tree, hgrid []policy.GridPoint,
	o LODOOptions, learned, hybrid string) error {
	mk := []func(policy.Scorer) (policy.Policy, error){func(s policy.Scorer) (policy.Policy, error) { return policy.NewLearned(s) }}
	if !o.NoHybrid {
		var pols []func(policy.Scorer) (policy.Policy, error)
		for _, pt := range hgrid {
			pols = append(pols, func(s policy.Scorer) (policy.Policy, error) { return policy.NewHybrid(s, pt) })
		}
		outs, err := ReplayScored(ctx, sc, fixed(val), pols...)
		if err != nil {
			return fmt.Errorf("tune %s: %w", hybrid, err)
		}
		best := -1
		for i := range outs {
			if best < 0 || meanT(outs[i]) < meanT(outs[best]) {
				best = i
			}
		}
		run.Hybrid = hgrid[best]
		mk = append(mk, func(s policy.Scorer) (policy.Policy, error) { return policy.NewHybrid(s, run.Hybrid) })
	}
	outs, err := ReplayScored(ctx, sc, held, mk...)
	if err != nil {
		return err
	}
	run.Outcomes[learned] = outs[0]
	if !o.NoHybrid {
		run.Outcomes[hybrid] = outs[1]
	}
	return nil
}

// ensembleRun scores the mean distribution of the models of runs (one per
// training seed) as ensemble and ensemble-hybrid, the hybrid's constants
// chosen on val as for a single model. Nothing about the ensemble is
// chosen: it is every model trained.
func ensembleRun(ctx context.Context, runs []LODORun, val, held []*corpus.Tree, hgrid []policy.GridPoint,
	o LODOOptions, env train.Env) (*LODORun, error) {
	var ens policy.Ensemble
	for _, r := range runs {
		sc, err := loadScorer(r.Checkpoint, env)
		if err != nil {
			return nil, fmt.Errorf("ensemble: %w", err)
		}
		defer sc.Close()
		ens = append(ens, sc)
	}
	run := &LODORun{Checkpoint: fmt.Sprintf("mean of %d models", len(runs)),
		Summary: map[string]policy.Summary{}, Outcomes: map[string][]policy.Outcome{}}
	if err := scoreHeld(ctx, run, ens, val, held, hgrid, o, "ensemble", "ensemble-hybrid"); err != nil {
		return nil, err
	}
	return run, nil
}

// fixed keeps the trees that hold a fix (E[T] is defined on them).
func fixed(ts []*corpus.Tree) []*corpus.Tree {
	return slices.DeleteFunc(slices.Clone(ts), func(t *corpus.Tree) bool { return !t.HasFix() })
}

// tuneBaselines picks each baseline's grid point by E[T] on val, and
// returns every baseline's E[T] there at its chosen point (an untuned one
// at its defaults): the figures a choice of the learned policy's settings
// may be compared with.
func tuneBaselines(ctx context.Context, val []*corpus.Tree, o LODOOptions) (map[string]policy.Params, map[string]float64, error) {
	out := map[string]policy.Params{}
	valET := map[string]float64{}
	if len(fixed(val)) == 0 {
		return nil, nil, ErrNoValFix
	}
	for _, name := range o.Baselines {
		pts := []policy.GridPoint{nil}
		spec, tuned := o.Grids[name]
		if tuned {
			var err error
			if pts, err = policy.ParseGrid(spec); err != nil {
				return nil, nil, fmt.Errorf("grid of %s: %w", name, err)
			}
		}
		var pols []eval.Policy
		for _, pt := range pts {
			p, err := budgeted(name, pt, o.Budgets)
			if err != nil {
				return nil, nil, err
			}
			pols = append(pols, eval.Policy{Policy: p, Params: pt})
		}
		tu, err := eval.Tune(ctx, eval.Trees(val), pols, eval.MetricET,
			eval.Options{Seeds: o.Seeds, Resamples: 1, Budgets: o.Budgets, Workers: o.Workers})
		if err != nil {
			return nil, nil, fmt.Errorf("tune %s: %w", name, err)
		}
		valET[name] = tu.Points[tu.Best].ET
		if tuned {
			out[name] = tu.Points[tu.Best].Params
		}
	}
	return out, valET, nil
}

// budgeted builds baseline name; a budget-aware one (bgmcts) whose params
// do not fix its budget gets the largest reported budget, as eval gives it.
func budgeted(name string, params policy.Params, budgets []int) (policy.Policy, error) {
	p, err := policy.New(name, params)
	if err != nil {
		return nil, err
	}
	if bp, ok := p.(interface{ WithBudget(int) policy.Policy }); ok {
		if _, set := params["budget"]; !set {
			p = bp.WithBudget(slices.Max(budgets))
		}
	}
	return p, nil
}

// replayBaseline replays baseline name (budgeted) on held: seeds 1..seeds
// for a stochastic policy, seed 1 otherwise. Cross-validation and
// leave-one-dataset-out score baselines the same way.
func replayBaseline(ctx context.Context, held []*corpus.Tree, name string, params policy.Params, budgets []int, seeds, workers int) ([]policy.Outcome, error) {
	p, err := budgeted(name, params, budgets)
	if err != nil {
		return nil, err
	}
	n := 1
	if policy.Stochastic(name) {
		n = seeds
	}
	ss := make([]uint64, n)
	for i := range ss {
		ss[i] = uint64(i + 1)
	}
	outs, err := eval.ReplayTrees(ctx, held, p, ss, 0, workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return outs, nil
}

// ReplayScored replays every policy that mk builds over one TreeScorer of
// sc on every tree (each tree's edges scored once for all of them, seed 1:
// the scored policies are deterministic); outcomes per policy, in mk's
// order.
func ReplayScored(ctx context.Context, sc policy.Scorer, trees []*corpus.Tree, mk ...func(policy.Scorer) (policy.Policy, error)) ([][]policy.Outcome, error) {
	ts := train.NewTreeScorer(sc)
	pols := make([]policy.Policy, len(mk))
	for i, f := range mk {
		p, err := f(ts)
		if err != nil {
			return nil, err
		}
		pols[i] = p
	}
	out := make([][]policy.Outcome, len(pols))
	for _, t := range trees {
		ts.Reset()
		if err := ts.Prepare(ctx, t); err != nil {
			return nil, err
		}
		for i, p := range pols {
			r, err := eval.Replay(ctx, t, p, 1, 0)
			if err != nil {
				return nil, fmt.Errorf("replay %s with %s: %w", t.ID, p.Name(), err)
			}
			out[i] = append(out[i], r.Outcome())
		}
	}
	return out, nil
}

// LODOPooled is the judge's pooled row: each scored policy's trees of every
// direction against each baseline's, paired tree by tree as one set (each
// held-out tree is in exactly one direction when every dataset is held out
// once).
type LODOPooled struct {
	Directions []string `json:"directions"`
	Trees      int      `json:"trees"`
	Tasks      int      `json:"tasks"`
	// Runs pools the models of one training seed (Runs[i] the i-th seed of
	// every direction); Ensemble the ensembles'.
	Runs     []LODOPooledRun `json:"runs"`
	Ensemble []policy.Paired `json:"ensemble,omitempty"`
}

// LODOPooledRun is one training seed's pooled comparisons.
type LODOPooledRun struct {
	Seed   uint64          `json:"train_seed"`
	Paired []policy.Paired `json:"paired"`
}

// PoolLODO pools the directions of one leave-one-out judge (nil for fewer
// than two directions, or when a held-out dataset is scored twice, as
// every ordered pair of more than two datasets does: its trees would count
// twice). The bootstrap clusters by task across all of them.
func PoolLODO(dirs []LODODirection, o LODOOptions) *LODOPooled {
	if len(dirs) < 2 {
		return nil
	}
	p := &LODOPooled{}
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d.Test] || len(d.Runs) != len(dirs[0].Runs) {
			return nil
		}
		seen[d.Test] = true
		p.Directions = append(p.Directions, d.Train+" → "+d.Test)
		p.Trees += d.Trees
		p.Tasks += d.Tasks
	}
	o = o.withDefaults() // as LeaveOneDatasetOut scored the directions
	baseline := func(name string) []policy.Outcome {
		var outs []policy.Outcome
		for _, d := range dirs {
			outs = append(outs, d.Outcomes[name]...)
		}
		return outs
	}
	compare := func(runOf func(d LODODirection) *LODORun, names []string, seed uint64) []policy.Paired {
		var out []policy.Paired
		for _, name := range names {
			var outs []policy.Outcome
			for _, d := range dirs {
				r := runOf(d)
				if r == nil || r.Outcomes[name] == nil {
					outs = nil
					break
				}
				outs = append(outs, r.Outcomes[name]...)
			}
			if outs == nil {
				continue
			}
			for _, b := range o.Baselines {
				if pr, err := policy.ComparePaired(name, outs, b, baseline(b), o.Resamples, seed); err == nil {
					out = append(out, pr)
				}
			}
		}
		return out
	}
	for i, r := range dirs[0].Runs {
		p.Runs = append(p.Runs, LODOPooledRun{Seed: r.Seed,
			Paired: compare(func(d LODODirection) *LODORun { return &d.Runs[i] }, []string{"learned", "hybrid"}, r.Seed)})
	}
	p.Ensemble = compare(func(d LODODirection) *LODORun { return d.Ensemble }, []string{"ensemble", "ensemble-hybrid"}, 1)
	return p
}
