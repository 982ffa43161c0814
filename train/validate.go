package train

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"triage/corpus"
	"triage/model"
	"triage/model/priority"
	"triage/policy"
	"triage/search/eval"
)

// TreeScorer scores every edge of a recorded tree in a few large batches
// ahead of a replay and then answers the learned policy from memory: a
// replay asks for a handful of edges at a time, which would waste a
// compiled model on tiny executions. The scores are exactly those the
// model gives each edge (a deterministic function of the edge's input).
type TreeScorer struct {
	scorer policy.Scorer
	memo   map[[32]byte]priority.Dist
}

// NewTreeScorer wraps scorer (a model's, or an ensemble of them).
func NewTreeScorer(scorer policy.Scorer) *TreeScorer {
	return &TreeScorer{scorer: scorer, memo: map[[32]byte]priority.Dist{}}
}

// edgeKey hashes every field of an edge that reaches the model or s(e).
func edgeKey(e *priority.Edge) [32]byte {
	h := sha256.New()
	var b [8]byte
	for _, s := range []string{e.Feedback, e.Diagnosis, e.Edit, e.Program, e.ParentEdit} {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		h.Write([]byte(s))
	}
	for _, v := range []float64{e.PassRate, e.FailedFrac} {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	for _, v := range []int{e.Depth, e.MaxDepth, e.Bytes(), e.Remaining} {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Prepare scores all expandable edges of t.
func (s *TreeScorer) Prepare(ctx context.Context, t *corpus.Tree) error {
	var edges []priority.Edge
	for i := range t.Edges {
		if t.Edges[i].Child == corpus.NoNode {
			continue
		}
		edges = append(edges, policy.Input(t, corpus.EdgeID(i)))
	}
	if len(edges) == 0 {
		return nil
	}
	out, err := s.scorer.Score(ctx, edges)
	if err != nil {
		return fmt.Errorf("score tree %s: %w", t.ID, err)
	}
	for i := range edges {
		s.memo[edgeKey(&edges[i])] = out[i]
	}
	return nil
}

// Reset forgets the prepared scores.
func (s *TreeScorer) Reset() { clear(s.memo) }

// Score implements policy.Scorer from the prepared scores, scoring any
// edge it was not prepared for.
func (s *TreeScorer) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	out := make([]priority.Dist, len(edges))
	var miss []int
	for i := range edges {
		if d, ok := s.memo[edgeKey(&edges[i])]; ok {
			out[i] = d
		} else {
			miss = append(miss, i)
		}
	}
	if len(miss) == 0 {
		return out, nil
	}
	in := make([]priority.Edge, len(miss))
	for j, i := range miss {
		in[j] = edges[i]
	}
	got, err := s.scorer.Score(ctx, in)
	if err != nil {
		return nil, err
	}
	for j, i := range miss {
		out[i] = got[j]
	}
	return out, nil
}

// Validation is one replay of the learned policy on the validation split.
type Validation struct {
	Trees  int     `json:"trees"`  // trees with a fix replayed
	ET     float64 `json:"et"`     // mean expansions to the first fix
	Tokens float64 `json:"tokens"` // mean output tokens through the first fix
	Solved int     `json:"solved"`
}

// Validate replays the learned policy over every tree with a fix in src,
// one tree at a time, and returns E[T] (the metric the model is for).
func Validate(ctx context.Context, scorer *model.Scorer, src Source, opts ...policy.LearnedOption) (Validation, error) {
	ts := NewTreeScorer(scorer)
	p, err := policy.NewLearned(ts, opts...)
	if err != nil {
		return Validation{}, err
	}
	var v Validation
	var sumT, sumTok float64
	err = src.Trees(ctx, func(t *corpus.Tree) error {
		if !t.HasFix() {
			return nil
		}
		ts.Reset()
		if err := ts.Prepare(ctx, t); err != nil {
			return err
		}
		res, err := eval.Replay(ctx, t, p, 1, 0)
		if err != nil {
			return err
		}
		v.Trees++
		if res.Solved {
			v.Solved++
		}
		sumT += float64(res.Expansions)
		sumTok += float64(res.Tokens)
		return nil
	})
	if err != nil {
		return v, fmt.Errorf("validate: %w", err)
	}
	if v.Trees == 0 {
		return v, errors.New("validate: no tree with a fix in the validation split")
	}
	v.ET, v.Tokens = sumT/float64(v.Trees), sumTok/float64(v.Trees)
	return v, nil
}
