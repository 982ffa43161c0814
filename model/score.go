package model

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model/priority"
)

// ScorerOptions configure a Scorer.
type ScorerOptions struct {
	// Limits are the token budgets (default DefaultLimits).
	Limits Limits
	// Unpacked scores every edge as its own sequence instead of packing the
	// edits of one parent after one copy of its text.
	Unpacked bool
	// MaxRows is the most sequences per execution (default 8).
	MaxRows int
	// EditsPerRow is the most edits packed in one row (default 3 = k).
	EditsPerRow int
}

// Scorer scores edges with a Model on one backend. It is safe for
// concurrent use; executions are serialized.
type Scorer struct {
	m    *Model
	tok  Tokenizer
	opts ScorerOptions
	mu   sync.Mutex
	exec *mlctx.Exec
}

// NewScorer compiles (lazily, per input shape) the priority model of m on
// backend. tok may be nil if only ScoreGroups is used.
func NewScorer(m *Model, backend backends.Backend, tok Tokenizer, opts ScorerOptions) (*Scorer, error) {
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits()
	}
	if opts.MaxRows <= 0 {
		opts.MaxRows = 8
	}
	if opts.EditsPerRow <= 0 {
		opts.EditsPerRow = 3
	}
	if opts.Unpacked {
		opts.EditsPerRow = 1
	}
	exec, err := mlctx.NewExec(backend, m.mctx, func(mctx *mlctx.Context, in []*Node) *Node {
		return m.Logits(mctx, in[0], in[1], in[2], in[3], in[4])
	})
	if err != nil {
		return nil, fmt.Errorf("scorer: %w", err)
	}
	exec.SetMaxCache(64)
	return &Scorer{m: m, tok: tok, opts: opts, exec: exec}, nil
}

// Close releases the compiled graphs.
func (s *Scorer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exec.Finalize()
}

// Score returns one Dist per edge, in order. Edges with the same parent
// (same feedback, diagnosis and features) are packed together unless the
// scorer is Unpacked. Score neither keeps nor modifies edges.
func (s *Scorer) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	if s.tok == nil {
		return nil, fmt.Errorf("scorer: no tokenizer")
	}
	type where struct{ g, e int }
	var groups []TokenGroup
	idx := map[parentKey]int{}
	places := make([]where, len(edges))
	for i := range edges {
		e := &edges[i]
		if err := e.Validate(); err != nil {
			return nil, fmt.Errorf("scorer: edge %d: %w", i, err)
		}
		if e.MaxDepth+1 != s.m.Opts.Bins {
			return nil, fmt.Errorf("scorer: edge %d: depth limit %d, the model has %d bins", i, e.MaxDepth, s.m.Opts.Bins)
		}
		key := keyOf(e)
		g, ok := idx[key]
		if !ok {
			g = len(groups)
			idx[key] = g
			groups = append(groups, TokenGroup{Prefix: SerializeParent(s.tok, s.opts.Limits, e), Features: e.Features()})
		}
		places[i] = where{g, len(groups[g].Edits)}
		groups[g].Edits = append(groups[g].Edits, SerializeEdit(s.tok, s.opts.Limits, e.Edit))
		groups[g].B = append(groups[g].B, e.Remaining)
	}
	res, err := s.ScoreGroups(ctx, groups)
	if err != nil {
		return nil, err
	}
	out := make([]priority.Dist, len(edges))
	for i, p := range places {
		out[i] = res[p.g][p.e]
	}
	return out, nil
}

// ScoreGroups scores already serialized groups: one Dist per edit, grouped
// like the input.
func (s *Scorer) ScoreGroups(ctx context.Context, groups []TokenGroup) ([][]priority.Dist, error) {
	logits, err := s.GroupLogits(ctx, groups)
	if err != nil {
		return nil, err
	}
	out := make([][]priority.Dist, len(groups))
	for g, grp := range groups {
		out[g] = make([]priority.Dist, len(grp.Edits))
		for e := range grp.Edits {
			out[g][e] = priority.Softmax(logits[g][e])
		}
	}
	return out, nil
}

// GroupLogits returns the raw logits [Bins] of every edit of every group.
func (s *Scorer) GroupLogits(ctx context.Context, groups []TokenGroup) ([][][]float32, error) {
	type slot struct{ g, e int }
	var rows []rowSpec
	var slots [][]slot
	for g, grp := range groups {
		if len(grp.B) != len(grp.Edits) {
			return nil, fmt.Errorf("scorer: group %d has %d edits and %d depths", g, len(grp.Edits), len(grp.B))
		}
		if len(grp.Prefix) == 0 {
			return nil, fmt.Errorf("scorer: group %d has an empty prefix", g)
		}
		for _, ids := range append([][]int32{grp.Prefix}, grp.Edits...) {
			for _, id := range ids {
				if id < 0 || int(id) >= s.m.Config.VocabSize {
					return nil, fmt.Errorf("scorer: group %d: token %d outside the vocabulary of %d", g, id, s.m.Config.VocabSize)
				}
			}
		}
		for start := 0; start < len(grp.Edits); start += s.opts.EditsPerRow {
			end := min(start+s.opts.EditsPerRow, len(grp.Edits))
			rows = append(rows, rowSpec{prefix: grp.Prefix, edits: grp.Edits[start:end], features: grp.Features})
			var sl []slot
			for e := start; e < end; e++ {
				sl = append(sl, slot{g, e})
			}
			slots = append(slots, sl)
		}
	}
	out := make([][][]float32, len(groups))
	for g := range groups {
		out[g] = make([][]float32, len(groups[g].Edits))
	}
	// Sort rows by length so each batch pads little, then cut into batches.
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rows[order[a]].rowLen() < rows[order[b]].rowLen() })
	for start := 0; start < len(order); start += s.opts.MaxRows {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scorer: %w", err)
		}
		end := min(start+s.opts.MaxRows, len(order))
		var br []rowSpec
		maxLen := 0
		for _, r := range order[start:end] {
			br = append(br, rows[r])
			maxLen = max(maxLen, rows[r].rowLen())
		}
		k := s.opts.EditsPerRow
		logits, err := s.run(br, rowsBucket(len(br), s.opts.MaxRows), lengthBucket(maxLen), k)
		if err != nil {
			return nil, err
		}
		bins := s.m.Opts.Bins
		for i, r := range order[start:end] {
			for j, sl := range slots[r] {
				off := (i*k + j) * bins
				out[sl.g][sl.e] = append([]float32(nil), logits[off:off+bins]...)
			}
		}
	}
	return out, nil
}

// run executes one padded batch and returns its flat logits [rows·k·Bins].
func (s *Scorer) run(rows []rowSpec, nRows, length, k int) ([]float32, error) {
	b, err := makeBatch(rows, nRows, length, k)
	if err != nil {
		return nil, fmt.Errorf("scorer: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	outs, err := s.exec.Exec(
		tensors.FromFlatDataAndDimensions(b.tokens, nRows, length),
		tensors.FromFlatDataAndDimensions(b.positions, nRows, length),
		tensors.FromFlatDataAndDimensions(b.segments, nRows, length),
		tensors.FromFlatDataAndDimensions(b.last, nRows, k),
		tensors.FromFlatDataAndDimensions(b.features, nRows, k, NumFeatures))
	if err != nil {
		return nil, fmt.Errorf("scorer: %w", err)
	}
	flat, err := tensors.CopyFlatData[float32](outs[0])
	if err != nil {
		return nil, fmt.Errorf("scorer: %w", err)
	}
	for _, v := range flat {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("scorer: non-finite logit %g", v)
		}
	}
	return flat, nil
}
