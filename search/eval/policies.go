package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"

	"triage/corpus"
	"triage/policy"
)

// ScorerLoader loads a checkpoint's model (empty path: the embedded
// default); free releases it. The caller supplies it because loading a
// model is the model package's concern, which eval may not import.
type ScorerLoader func(ctx context.Context, checkpoint string) (s policy.Scorer, free func(), err error)

// LoadParams reads a hyperparameter file written by `triage tune` (empty
// path: no params). flag names the option in bad-input errors.
func LoadParams(flag, path string) (policy.ParamSet, error) {
	if path == "" {
		return policy.ParamSet{}, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, corpus.BadInput("%s: %v", flag, err)
	}
	defer fh.Close()
	ps, err := policy.ReadParamSet(fh)
	if err != nil {
		return nil, corpus.BadInput("%s %s: %v", flag, path, err)
	}
	return ps, nil
}

// BuildPolicies builds the named policies with their params; the scored
// ones (learned, hybrid) share one model loaded from checkpoint. flag names
// the option in bad-input errors. release frees the model; call it even
// when err is not nil.
func BuildPolicies(ctx context.Context, flag string, names []string, ps policy.ParamSet, checkpoint string, load ScorerLoader, lopts ...policy.LearnedOption) (pols []Policy, release func(), err error) {
	release = func() {}
	var shared *SharedScorer // one compiled model for learned and hybrid
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			return nil, release, corpus.BadInput("%s: %s given twice", flag, name)
		}
		seen[name] = true
		if policy.NeedsScorer(name) {
			if shared == nil {
				if shared, release, err = LoadScorer(ctx, name, checkpoint, load); err != nil {
					return nil, release, err
				}
			}
			p, err := policy.NewScored(name, ps[name], shared.Batcher(), lopts...)
			if err != nil {
				return nil, release, corpus.BadInput("%s: %v", flag, err)
			}
			pols = append(pols, Policy{Policy: p, Params: ps[name]})
			continue
		}
		p, err := policy.New(name, ps[name])
		if err != nil {
			return nil, release, corpus.BadInput("%s: %v", flag, err)
		}
		pols = append(pols, Policy{Policy: p, Params: ps[name]})
	}
	return pols, release, nil
}

// SharedScorer is a checkpoint's compiled model, shared by the scored
// policies of one command, each through its own batcher.
type SharedScorer struct {
	model    policy.Scorer
	batchers []*policy.Batcher
}

// Batcher returns a new batcher over the model for one policy. Concurrent
// episodes of that policy share it: their edges go into one execution
// instead of one tiny call per expansion. Policies do not share one: the
// model encodes a parent's edits together, and two policies asking for the
// same parent in one batch would score a group holding each edit twice.
// One call per CPU runs at once: encoding a batch's texts is CPU work the
// model's own lock does not cover (a graph execution is still one at a
// time; the CPU model needs no graph). A call takes what is queued without
// waiting for more: while calls are busy edges pile up and fill the next
// ones, and a replay that waited for a fuller batch would wait at every
// expansion.
func (l *SharedScorer) Batcher() policy.Scorer {
	b, err := policy.NewBatcher(l.model, policy.BatchOptions{MaxEdges: 256, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return l.model // only for invalid options, which these are not
	}
	l.batchers = append(l.batchers, b)
	return b
}

// LoadScorer loads the checkpoint's model for the scored policy name;
// release closes its batchers and frees it.
func LoadScorer(ctx context.Context, name, checkpoint string, load ScorerLoader) (*SharedScorer, func(), error) {
	release := func() {}
	sc, free, err := load(ctx, checkpoint)
	if err != nil {
		if checkpoint == "" {
			return nil, release, fmt.Errorf("policy %s: %w", name, err)
		}
		return nil, release, fmt.Errorf("load checkpoint %s: %w", checkpoint, err)
	}
	l := &SharedScorer{model: sc}
	return l, func() {
		for _, b := range l.batchers {
			_ = b.Close()
		}
		free()
	}, nil
}

// OpenSplit opens a reader of one split's trees that decodes what pols
// read.
func OpenSplit(dirs []string, split string, pols []Policy) (*corpus.TreeReader, error) {
	return corpus.OpenTrees(dirs, corpus.ReadOptions{Split: split, Columns: ColumnsFor(pols)})
}

// NoTreesInput turns ErrNoTrees into bad input naming the corpus and split.
func NoTreesInput(err error, corpusName, split string) error {
	if errors.Is(err, ErrNoTrees) {
		return corpus.BadInput("corpus %s has no tree in split %q", corpusName, split)
	}
	return err
}

// GridPolicies builds the policy name once per grid point, for Tune; a
// scored policy gets its own batcher of sc per point (see
// SharedScorer.Batcher).
func GridPolicies(name string, points []policy.Params, sc *SharedScorer) ([]Policy, error) {
	var pols []Policy
	for _, pt := range points {
		var scorer policy.Scorer
		if sc != nil {
			scorer = sc.Batcher()
		}
		p, err := policy.NewScored(name, pt, scorer)
		if err != nil {
			return nil, corpus.BadInput("--grid %s: %v", pt, err)
		}
		pols = append(pols, Policy{Policy: p, Params: pt})
	}
	return pols, nil
}
