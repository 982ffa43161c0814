package eval

import (
	"errors"
	"os"
	"runtime"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/policy"
)

// LoadParams reads a hyperparameter file written by `triage tune` (empty
// path: no params). An unreadable or malformed file is bad input in the
// field Params.
func LoadParams(path string) (policy.ParamSet, error) {
	if path == "" {
		return policy.ParamSet{}, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, corpus.Invalid("{Params}: %v", err)
	}
	defer fh.Close()
	ps, err := policy.ReadParamSet(fh)
	if err != nil {
		return nil, corpus.Invalid("{Params} %s: %v", path, err)
	}
	return ps, nil
}

// CheckPolicies checks the policy names (field Policies) and their params
// without building them: each name is known and given once, and its params
// are its own. A caller checks before it loads the scorer the scored ones
// need, so bad input is found first.
func CheckPolicies(names []string, ps policy.ParamSet) error {
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			return corpus.Invalid("{Policies}: %s given twice", name)
		}
		seen[name] = true
		if err := policy.CheckParams(name, ps[name]); err != nil {
			return corpus.Invalid("{Policies}: %v", err)
		}
	}
	return nil
}

// ErrNoScorer is returned when a policy that needs a scorer is asked for
// without one.
var ErrNoScorer = errors.New("needs the learned model's scorer, and none was given")

// BuildPolicies builds the named policies (field Policies) with their
// params; the scored ones (learned, hybrid) share scorer, each through its
// own batcher (see SharedScorer). release closes the batchers, not the
// scorer; call it even when err is not nil.
func BuildPolicies(names []string, ps policy.ParamSet, scorer policy.Scorer, lopts ...policy.LearnedOption) (pols []Policy, release func(), err error) {
	if err := CheckPolicies(names, ps); err != nil {
		return nil, func() {}, err
	}
	shared := NewSharedScorer(scorer)
	for _, name := range names {
		var p policy.Policy
		if policy.NeedsScorer(name) {
			if scorer == nil {
				return nil, shared.Close, corpus.Invalid("{Policies}: %s %w", name, ErrNoScorer)
			}
			p, err = policy.NewScored(name, ps[name], shared.Batcher(), lopts...)
		} else {
			p, err = policy.New(name, ps[name])
		}
		if err != nil {
			return nil, shared.Close, corpus.Invalid("{Policies}: %v", err)
		}
		pols = append(pols, Policy{Policy: p, Params: ps[name]})
	}
	return pols, shared.Close, nil
}

// SharedScorer is the learned model, shared by the scored policies of one
// command, each through its own batcher.
type SharedScorer struct {
	model    policy.Scorer
	batchers []*policy.Batcher
}

// NewSharedScorer shares model (nil: none) among policies.
func NewSharedScorer(model policy.Scorer) *SharedScorer { return &SharedScorer{model: model} }

// Batcher returns a new batcher over the model for one policy (nil without
// a model). Concurrent episodes of that policy share it: their edges go
// into one execution instead of one tiny call per expansion. Policies do
// not share one: the model encodes a parent's edits together, and two
// policies asking for the same parent in one batch would score a group
// holding each edit twice. One call per CPU runs at once: encoding a
// batch's texts is CPU work the model's own lock does not cover (a graph
// execution is still one at a time; the CPU model needs no graph). A call
// takes what is queued without waiting for more: while calls are busy
// edges pile up and fill the next ones, and a replay that waited for a
// fuller batch would wait at every expansion.
func (l *SharedScorer) Batcher() policy.Scorer {
	if l.model == nil {
		return nil
	}
	b, err := policy.NewBatcher(l.model, policy.BatchOptions{MaxEdges: 256, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return l.model // only for invalid options, which these are not
	}
	l.batchers = append(l.batchers, b)
	return b
}

// Close closes the batchers; the model stays open (its owner frees it).
func (l *SharedScorer) Close() {
	for _, b := range l.batchers {
		_ = b.Close()
	}
	l.batchers = nil
}

// OpenSplit opens a reader of one split's trees that decodes what pols
// read.
func OpenSplit(dirs []string, split string, pols []Policy) (*shard.TreeReader, error) {
	return shard.OpenTrees(dirs, shard.ReadOptions{Split: split, Columns: ColumnsFor(pols)})
}

// NoTreesInput turns ErrNoTrees into bad input naming the corpus and split.
func NoTreesInput(err error, corpusName, split string) error {
	if errors.Is(err, ErrNoTrees) {
		return corpus.BadInput("corpus %s has no tree in split %q", corpusName, split)
	}
	return err
}

// GridPolicies builds the policy name once per grid point (field Points),
// for Tune; a scored policy gets its own batcher of sc per point (see
// SharedScorer.Batcher).
func GridPolicies(name string, points []policy.Params, sc *SharedScorer) ([]Policy, error) {
	var pols []Policy
	for _, pt := range points {
		p, err := policy.NewScored(name, pt, sc.Batcher())
		if err != nil {
			return nil, corpus.Invalid("{Points} %s: %v", pt, err)
		}
		pols = append(pols, Policy{Policy: p, Params: pt})
	}
	return pols, nil
}
