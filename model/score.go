package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model/priority"
)

// Scorer scores edges with a Net whose variables live in mctx, on one
// backend. It implements the learned policy's Scorer contract:
// Score(ctx, edges) returns one distribution per edge, in order. It is safe
// for concurrent use; graph executions are serialized (one owner of the
// compiled graphs), so callers that want throughput batch their edges
// (policy.Batcher). The bag architecture is scored in plain Go (see
// bagForward), on any backend, and needs no graph.
type Scorer struct {
	net     Net
	mctx    *mlctx.Context
	maxRows int
	mu      sync.Mutex
	exec    *mlctx.Exec
	bag     *bagForward // non-nil: the bag model's forward pass in Go
}

// NewScorer compiles (lazily, per input shape) net's logits graph on
// backend. maxRows bounds the rows of one execution (default 8).
func NewScorer(net Net, mctx *mlctx.Context, backend backends.Backend, maxRows int) (*Scorer, error) {
	if maxRows <= 0 {
		maxRows = 8
	}
	exec, err := mlctx.NewExec(backend, mctx.Reuse(), func(c *mlctx.Context, in []*Node) *Node {
		return net.Logits(c, in)
	})
	if err != nil {
		return nil, fmt.Errorf("scorer: %w", err)
	}
	exec.SetMaxCache(64)
	s := &Scorer{net: net, mctx: mctx, maxRows: maxRows, exec: exec}
	if bn, ok := net.(*BagNet); ok {
		// An untrained bundle has no variables yet: the graph makes them.
		if s.bag, err = newBagForward(bn, mctx); err != nil && !errors.Is(err, errNoVariable) {
			exec.Finalize()
			return nil, fmt.Errorf("scorer: %w", err)
		}
	}
	return s, nil
}

// Net returns the scorer's architecture.
func (s *Scorer) Net() Net { return s.net }

// Close releases the compiled graphs.
func (s *Scorer) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exec.Finalize()
}

// Score returns one distribution over D+1 solve-distance bins per edge, in
// order, where D is the edge's depth limit (a tree shallower than the
// model's gets the model's distribution with the distances beyond its limit
// folded into the last bin). Edges of one parent are encoded together (and
// packed, where the architecture packs). It neither keeps nor modifies
// edges.
func (s *Scorer) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	groups, where := GroupByParent(edges)
	enc := make([]Encoded, len(groups))
	for g, ed := range groups {
		e, err := s.net.Encode(ed)
		if err != nil {
			return nil, fmt.Errorf("scorer: %w", err)
		}
		enc[g] = e
	}
	res, err := s.ScoreEncoded(ctx, enc)
	if err != nil {
		return nil, err
	}
	out := make([]priority.Dist, len(edges))
	for i, w := range where {
		out[i] = res[w[0]][w[1]].Horizon(edges[i].MaxDepth)
	}
	return out, nil
}

// ScoreEncoded scores already encoded groups: one distribution per edit,
// grouped like the input.
func (s *Scorer) ScoreEncoded(ctx context.Context, groups []Encoded) ([][]priority.Dist, error) {
	logits, err := s.Logits(ctx, groups)
	if err != nil {
		return nil, err
	}
	out := make([][]priority.Dist, len(groups))
	for g := range groups {
		out[g] = make([]priority.Dist, len(logits[g]))
		for e := range logits[g] {
			out[g][e] = priority.Softmax(logits[g][e])
		}
	}
	return out, nil
}

// Logits returns the raw logits [bins] of every edit of every group.
func (s *Scorer) Logits(ctx context.Context, groups []Encoded) ([][][]float32, error) {
	out := make([][][]float32, len(groups))
	for g := range groups {
		if len(groups[g].B) != len(groups[g].Edits) {
			return nil, fmt.Errorf("scorer: group %d has %d edits and %d depths", g, len(groups[g].Edits), len(groups[g].B))
		}
		out[g] = make([][]float32, len(groups[g].Edits))
	}
	if s.bag != nil {
		for g := range groups {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("scorer: %w", err)
			}
			if len(groups[g].Dense) != len(groups[g].Edits) {
				return nil, fmt.Errorf("scorer: group %d has %d edits and %d dense rows", g, len(groups[g].Edits), len(groups[g].Dense))
			}
			lg, err := s.bag.logits(&groups[g])
			if err != nil {
				return nil, fmt.Errorf("scorer: group %d: %w", g, err)
			}
			out[g] = lg
		}
		return out, nil
	}
	batches, err := s.net.Batches(groups, s.maxRows)
	if err != nil {
		return nil, fmt.Errorf("scorer: %w", err)
	}
	for _, b := range batches {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("scorer: %w", err)
		}
		flat, bins, err := s.run(b)
		if err != nil {
			return nil, err
		}
		for i, sl := range b.Slots {
			if sl[0] < 0 {
				continue
			}
			out[sl[0]][sl[1]] = append([]float32(nil), flat[i*bins:(i+1)*bins]...)
		}
	}
	for g := range out {
		for e := range out[g] {
			if out[g][e] == nil {
				return nil, fmt.Errorf("scorer: group %d edit %d was not laid out in any batch", g, e)
			}
		}
	}
	return out, nil
}

// run executes one batch and returns its flat logits [Rows·K·bins].
func (s *Scorer) run(b Batch) ([]float32, int, error) {
	args := make([]any, len(b.Inputs))
	for i, t := range b.Inputs {
		args[i] = t
	}
	s.mu.Lock()
	outs, err := s.exec.Exec(args...)
	s.mu.Unlock()
	if err != nil {
		return nil, 0, fmt.Errorf("scorer: %w", err)
	}
	defer outs[0].FinalizeAll()
	dims := outs[0].Shape().Dimensions
	if len(dims) != 3 || dims[0] != b.Rows || dims[1] != b.K {
		return nil, 0, fmt.Errorf("scorer: logits of shape %v for a %d×%d batch", dims, b.Rows, b.K)
	}
	flat, err := tensors.CopyFlatData[float32](outs[0])
	if err != nil {
		return nil, 0, fmt.Errorf("scorer: %w", err)
	}
	for _, v := range flat {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, 0, fmt.Errorf("scorer: non-finite logit %g", v)
		}
	}
	return flat, dims[2], nil
}
