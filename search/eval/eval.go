// Package eval replays search policies over a stream of corpus trees and
// summarizes them: E[T], output tokens, S(B), C(B) and AUSC(B), each with a
// standard error from a bootstrap clustered by task (policy.Summarize).
// Tune picks a policy's hyperparameters from a grid the same way.
//
// Trees are read one at a time from a Source (a shard.TreeReader, which
// decodes only the columns a replay needs), replayed by every policy and
// seed on a pool of workers, and dropped; what is kept per tree is a few
// numbers per replay, merged in the order the trees were read. Memory is
// therefore bounded by the workers' window of trees, not by the corpus,
// and the figures do not depend on the number of workers.
//
// Imports: the engine (search), corpus, policy and model/priority; its
// subpackage report renders what it computes.
package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/policy"
	"triage/search"
)

// Source yields the trees to evaluate one at a time; Next returns io.EOF
// after the last. A *shard.TreeReader is one.
type Source interface {
	Next() (*corpus.Tree, error)
}

// Projected is implemented by sources that decode only some columns
// (shard.TreeReader); Evaluate checks that they decode what the policies
// read.
type Projected interface {
	Columns() shard.Columns
}

// Trees returns a Source over trees held in memory.
func Trees(ts []*corpus.Tree) Source { return &sliceSource{trees: ts} }

type sliceSource struct {
	trees []*corpus.Tree
	next  int
}

func (s *sliceSource) Next() (*corpus.Tree, error) {
	if s.next >= len(s.trees) {
		return nil, io.EOF
	}
	s.next++
	return s.trees[s.next-1], nil
}

// Policy is one policy to evaluate, with the hyperparameters it was built
// with (for the record).
type Policy struct {
	Policy policy.Policy
	Params policy.Params
}

// Options configure Evaluate.
type Options struct {
	// Budgets at which S, C and AUSC are reported (default DefaultBudgets).
	Budgets []int
	// MaxExpansions caps each replay (0: until the first fix, as E[T]
	// needs).
	MaxExpansions int
	// Seeds is the number of seeds of a stochastic policy (default 10);
	// deterministic policies run once, with seed 1.
	Seeds int
	// Resamples of the task-clustered bootstrap (default 1000).
	Resamples int
	// Workers replaying trees in parallel (<= 0: one per CPU).
	Workers int
	// Paired names policies to compare tree by tree with every other
	// policy evaluated (policy.ComparePaired): Results.Paired.
	Paired []string
	// BySource also summarizes every policy, and pairs the Paired ones,
	// on the trees of each task source apart (Results.BySource).
	BySource bool
}

// DefaultBudgets are the budgets of the reports.
var DefaultBudgets = []int{4, 8, 16, 36}

// bootstrapSeed seeds the bootstrap of every summary, so that reports
// repeat.
const bootstrapSeed = 7

// PolicyResult is one policy's summary.
type PolicyResult struct {
	Name    string         `json:"name"`
	Params  policy.Params  `json:"params,omitempty"`
	Seeds   int            `json:"seeds"`
	Summary policy.Summary `json:"summary"`
}

// Results are the summaries of every policy over the trees of a source.
type Results struct {
	Trees    int            `json:"trees"`
	Tasks    int            `json:"tasks"`
	Nodes    int            `json:"nodes"`
	Budgets  []int          `json:"budgets"`
	Policies []PolicyResult `json:"policies"`
	// Paired compares each of Options.Paired with every other policy,
	// over the trees both solve (pairs with no such tree are left out).
	Paired []policy.Paired `json:"paired,omitempty"`
	// BySource holds the same for each task source's trees apart
	// (Options.BySource), in the order of the sources' names.
	BySource []SourceResults `json:"by_source,omitempty"`
}

// SourceResults are the summaries and paired comparisons of the trees of
// one task source.
type SourceResults struct {
	Source   string          `json:"source"`
	Trees    int             `json:"trees"`
	FixTrees int             `json:"trees_with_fix"`
	Tasks    int             `json:"tasks"`
	Policies []PolicyResult  `json:"policies"`
	Paired   []policy.Paired `json:"paired,omitempty"`
}

// ErrNoTrees is returned by Evaluate for a source without trees.
var ErrNoTrees = errors.New("evaluate: no trees")

// budgeted is implemented by policies that take the search budget into
// account (bgmcts).
type budgeted interface {
	WithBudget(b int) policy.Policy
}

// ColumnsFor returns the projection a replay of pols reads: the scorer's
// text when a scored policy (learned, hybrid) is among them, no text otherwise.
func ColumnsFor(pols []Policy) shard.Columns {
	for _, p := range pols {
		if readsText(p.Policy) {
			return shard.ScorerColumns
		}
	}
	return shard.ReplayColumns
}

// readsText reports whether p scores edges from their text (policy.Input):
// the learned policy, under any name, and the hybrid.
func readsText(p policy.Policy) bool {
	switch p.(type) {
	case policy.Learned, policy.Hybrid:
		return true
	}
	return false
}

// run is one policy as replayed: budget-aware policies bound to the
// largest budget, and its seeds.
type run struct {
	p      policy.Policy
	params policy.Params
	seeds  []uint64
}

// replay is what is kept of one replay.
type replay struct {
	t, tokens int32
	solved    bool
}

// treeResult is what is kept of one tree: its ids and, per run and seed,
// one replay.
type treeResult struct {
	task, tree, source string
	nodes              int
	fix                bool
	replays            [][]replay // [run][seed]
	err                error
}

// Evaluate replays every policy on every tree of src and summarizes them.
// Stochastic policies are replayed with seeds 1..opts.Seeds, the others
// with seed 1. A budget-aware policy whose params do not fix "budget" is
// given the largest reported budget. It returns ErrNoTrees when src yields
// none.
func Evaluate(ctx context.Context, src Source, pols []Policy, opts Options) (*Results, error) {
	if len(pols) == 0 {
		return nil, errors.New("evaluate: no policies")
	}
	if err := opts.fill(); err != nil {
		return nil, err
	}
	if ps, ok := src.(Projected); ok && ps.Columns() < ColumnsFor(pols) {
		return nil, fmt.Errorf("evaluate: the policies read %v columns, the source decodes %v", ColumnsFor(pols), ps.Columns())
	}
	runs := newRuns(pols, slices.Max(opts.Budgets), opts.Seeds)
	start := time.Now()
	trees, err := replayAll(ctx, src, runs, opts.MaxExpansions, opts.Workers)
	if err != nil {
		return nil, err
	}
	if len(trees) == 0 {
		return nil, ErrNoTrees
	}
	res := &Results{Trees: len(trees), Budgets: slices.Clone(opts.Budgets)}
	tasks := map[string]bool{}
	for i := range trees {
		tasks[trees[i].task] = true
		res.Nodes += trees[i].nodes
	}
	res.Tasks = len(tasks)
	for _, name := range opts.Paired {
		if !slices.ContainsFunc(runs, func(r run) bool { return r.p.Name() == name }) {
			return nil, fmt.Errorf("evaluate: paired comparison of %s, which is not evaluated", name)
		}
	}
	var kept [][]policy.Outcome // every run's outcomes, for the paired comparisons
	secs := time.Since(start).Seconds()
	slog.Info("replayed", "trees", res.Trees, "nodes", res.Nodes, "seconds", math.Round(secs*10)/10,
		"nodes_per_s", math.Round(float64(res.Nodes)/secs))
	for i, r := range runs {
		outs := runOutcomes(trees, i, r.seeds)
		sm, err := policy.Summarize(outs, opts.Budgets, opts.Resamples, bootstrapSeed)
		if err != nil {
			return nil, fmt.Errorf("evaluate %s: %w", r.p.Name(), err)
		}
		slog.Info("evaluated", "policy", r.p.Name(), "trees", res.Trees, "seeds", len(r.seeds), "ET", sm.ET, "solved", sm.Solved)
		res.Policies = append(res.Policies, PolicyResult{Name: r.p.Name(), Params: r.params, Seeds: len(r.seeds), Summary: sm})
		if len(opts.Paired) > 0 {
			kept = append(kept, outs)
		}
	}
	res.Paired = comparePaired(runs, kept, opts.Paired, opts.Resamples)
	if opts.BySource {
		if res.BySource, err = bySource(trees, runs, opts); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// bySource summarizes every run on each source's trees apart and pairs
// the Paired policies there.
func bySource(trees []treeResult, runs []run, opts Options) ([]SourceResults, error) {
	groups := map[string][]treeResult{}
	for _, t := range trees {
		groups[t.source] = append(groups[t.source], t)
	}
	var out []SourceResults
	for _, src := range slices.Sorted(maps.Keys(groups)) {
		ts := groups[src]
		sr := SourceResults{Source: src, Trees: len(ts)}
		tasks := map[string]bool{}
		for _, t := range ts {
			tasks[t.task] = true
			if t.fix {
				sr.FixTrees++
			}
		}
		sr.Tasks = len(tasks)
		var kept [][]policy.Outcome
		for i, r := range runs {
			outs := runOutcomes(ts, i, r.seeds)
			sm, err := policy.Summarize(outs, opts.Budgets, opts.Resamples, bootstrapSeed)
			if err != nil {
				return nil, fmt.Errorf("evaluate %s on source %s: %w", r.p.Name(), src, err)
			}
			sr.Policies = append(sr.Policies, PolicyResult{Name: r.p.Name(), Params: r.params, Seeds: len(r.seeds), Summary: sm})
			kept = append(kept, outs)
		}
		sr.Paired = comparePaired(runs, kept, opts.Paired, opts.Resamples)
		out = append(out, sr)
	}
	return out, nil
}

// fill gives o's zero fields their defaults and checks the budgets.
func (o *Options) fill() error {
	if len(o.Budgets) == 0 {
		o.Budgets = DefaultBudgets
	}
	if slices.Min(o.Budgets) < 1 {
		return fmt.Errorf("evaluate: budgets must be >= 1, got %v", o.Budgets)
	}
	if o.Seeds <= 0 {
		o.Seeds = 10
	}
	if o.Resamples <= 0 {
		o.Resamples = 1000
	}
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	return nil
}

// newRuns makes one run per policy: a budget-aware policy whose params do
// not fix "budget" gets maxB, a stochastic one seeds 1..seeds, the others
// seed 1.
func newRuns(pols []Policy, maxB, seeds int) []run {
	runs := make([]run, len(pols))
	for i, ep := range pols {
		p := ep.Policy
		if b, ok := p.(budgeted); ok {
			if _, fixed := ep.Params["budget"]; !fixed {
				p = b.WithBudget(maxB)
			}
		}
		n := 1
		if policy.Stochastic(p.Name()) {
			n = seeds
		}
		runs[i] = run{p: p, params: ep.Params, seeds: make([]uint64, n)}
		for s := range runs[i].seeds {
			runs[i].seeds[s] = uint64(s + 1)
		}
	}
	return runs
}

// runOutcomes are run i's outcomes on every tree, one per seed.
func runOutcomes(trees []treeResult, i int, seeds []uint64) []policy.Outcome {
	outs := make([]policy.Outcome, 0, len(trees)*len(seeds))
	for k := range trees {
		tr := &trees[k]
		for s, rp := range tr.replays[i] {
			outs = append(outs, policy.Outcome{TaskID: tr.task, TreeID: tr.tree, Seed: seeds[s],
				Solved: rp.solved, T: int(rp.t), Tokens: int(rp.tokens)})
		}
	}
	return outs
}

// comparePaired compares each policy of paired with every other run, tree
// by tree (kept: every run's outcomes); a pair with no tree solved by both
// is left out.
func comparePaired(runs []run, kept [][]policy.Outcome, paired []string, resamples int) []policy.Paired {
	var out []policy.Paired
	for _, name := range paired {
		a := slices.IndexFunc(runs, func(r run) bool { return r.p.Name() == name })
		for b, r := range runs {
			if b == a {
				continue
			}
			p, err := policy.ComparePaired(name, kept[a], r.p.Name(), kept[b], resamples, bootstrapSeed)
			if err != nil {
				continue // no tree solved by both: nothing to compare
			}
			out = append(out, p)
		}
	}
	return out
}

// replayAll reads src and replays each tree with every run on up to
// workers goroutines (errgroup with a limit: reading waits for a free
// worker), and returns what is kept of each tree in the order src yielded
// them. Besides what src decodes ahead, at most workers+1 trees are held
// at once. The first error cancels the rest.
func replayAll(ctx context.Context, src Source, runs []run, budget, workers int) ([]treeResult, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	var mu sync.Mutex
	var out []treeResult
	for seq := 0; gctx.Err() == nil; seq++ {
		t, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			g.Go(func() error { return err })
			break
		}
		g.Go(func() error {
			r := replayTree(gctx, t, runs, budget)
			if r.err != nil {
				return r.err
			}
			mu.Lock()
			defer mu.Unlock()
			for len(out) <= seq {
				out = append(out, treeResult{})
			}
			out[seq] = r
			return nil
		})
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// replayTree replays t with every run and seed.
func replayTree(ctx context.Context, t *corpus.Tree, runs []run, budget int) treeResult {
	r := treeResult{task: t.TaskID, tree: t.ID, source: t.Source, nodes: len(t.Nodes), fix: t.HasFix(), replays: make([][]replay, len(runs))}
	for i, rn := range runs {
		r.replays[i] = make([]replay, len(rn.seeds))
		for s, seed := range rn.seeds {
			res, err := Replay(ctx, t, rn.p, seed, budget)
			if err != nil {
				r.err = err
				return r
			}
			if res.Expansions > math.MaxInt32 || res.Tokens > math.MaxInt32 {
				r.err = fmt.Errorf("policy %s tree %s seed %d: %d expansions, %d tokens: too many", rn.p.Name(), t.ID, seed, res.Expansions, res.Tokens)
				return r
			}
			r.replays[i][s] = replay{t: int32(res.Expansions), tokens: int32(res.Tokens), solved: res.Solved}
		}
	}
	return r
}

// Trace replays p on t with seed 1, recording the frontier before every
// expansion (search.Config.Trace), for the report's tree viewer. A search
// that ends without a fix is a result, not an error.
func Trace(ctx context.Context, t *corpus.Tree, p policy.Policy) (search.Result, error) {
	env, err := search.NewReplay(t)
	if err != nil {
		return search.Result{}, err
	}
	res, err := search.Run(ctx, env, p, search.Config{Seed: 1, Trace: true})
	if err != nil {
		return res, fmt.Errorf("trace %s with %s: %w", t.ID, p.Name(), err)
	}
	return res, nil
}
