package policy

import (
	"context"
	"errors"
	"fmt"
	"math"

	"triage/corpus"
)

// EdgeInput is what a Scorer sees of one frontier edge: the parent
// program's execution feedback and diagnosis, the edit text, and the raw
// parent features (the scorer standardizes them). Remaining depth is not an
// input of the model (DESIGN.md "The priority model"); it is given so that
// a scorer may use it for bookkeeping only.
type EdgeInput struct {
	TreeID     string        `json:"tree_id"`
	TaskID     string        `json:"task_id"`
	Edge       corpus.EdgeID `json:"edge_id"`
	Parent     corpus.NodeID `json:"parent_id"`
	Index      int           `json:"index"`
	Feedback   string        `json:"feedback"`
	Diagnosis  string        `json:"diagnosis"`
	Edit       string        `json:"edit"`
	PassRate   float64       `json:"pass_rate"`
	FailedFrac float64       `json:"failed_frac"`
	Depth      int           `json:"depth"`     // the parent's depth
	MaxDepth   int           `json:"max_depth"` // D
	ProgramLen int           `json:"program_len"`
	// Remaining is b(e) = D − depth(child) + 1.
	Remaining int `json:"remaining"`
}

// Dist is a model's distribution over the solve distance of one edge:
// Dist[j-1] = P(t = j) for j = 1..D, and Dist[D] = P(t > D).
type Dist []float64

// Priority is CodeTriage's score s(e) = (1/b) Σ_{m=1..b} F(m) with
// F(m) = Σ_{j≤m} p_j: the expected fraction of the remaining depth b left
// after the first fix. b < 1 counts as 1; solve distances past D (the last
// entry, P(t > D)) add no mass to F.
func (d Dist) Priority(b int) float64 {
	if b < 1 {
		b = 1
	}
	var f, s float64
	for m := 1; m <= b; m++ {
		if m <= len(d)-1 {
			f += d[m-1]
		}
		s += f
	}
	return s / float64(b)
}

// Validate checks that d is a probability vector: finite, non-negative
// entries summing to 1 within 1e-3.
func (d Dist) Validate() error {
	if len(d) == 0 {
		return errors.New("empty distribution")
	}
	var sum float64
	for i, p := range d {
		if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return fmt.Errorf("entry %d = %v is not a probability", i, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-3 {
		return fmt.Errorf("entries sum to %v, want 1", sum)
	}
	return nil
}

// Scorer rates frontier edges. Score returns exactly one Dist per input, in
// the same order. It does not keep or modify edges. Its error is for
// cancellation and infrastructure; the learned policy calls it once per
// batch of edges that join the frontier and never again for the same edge.
type Scorer interface {
	Score(ctx context.Context, edges []EdgeInput) ([]Dist, error)
}

// ScoreFunc adapts a function to Scorer.
type ScoreFunc func(ctx context.Context, edges []EdgeInput) ([]Dist, error)

// Score calls f.
func (f ScoreFunc) Score(ctx context.Context, edges []EdgeInput) ([]Dist, error) {
	return f(ctx, edges)
}

// Learned is CodeTriage's best-first policy (DESIGN.md "Policies"): the
// Scorer gives a distribution over the solve distance of each edge, once,
// when the edge joins the frontier; the episode expands the edge of highest
// s(e) = (1/b) Σ_{m≤b} F(m), ties by parent depth ascending, then EdgeID.
type Learned struct {
	scorer Scorer
}

// NewLearned returns the learned policy over scorer.
func NewLearned(scorer Scorer) (Policy, error) {
	if scorer == nil {
		return nil, errors.New("policy learned: nil scorer")
	}
	return Learned{scorer: scorer}, nil
}

// Name implements Policy.
func (p Learned) Name() string { return "learned" }

// Start implements Policy.
func (p Learned) Start(t *corpus.Tree, seed uint64) Episode {
	return &learnedEpisode{base: newBase(t, seed), scorer: p.scorer}
}

type learnedEpisode struct {
	base
	scorer Scorer
	score  []float64 // by EdgeID
	has    []bool    // by EdgeID: scored
	items  []scored
	buf    []corpus.EdgeID
}

// Input builds the Scorer input of edge e of t.
func Input(t *corpus.Tree, e corpus.EdgeID) EdgeInput {
	edge := &t.Edges[e]
	par := &t.Nodes[edge.Parent]
	d := maxDepth(t)
	return EdgeInput{
		TreeID: t.ID, TaskID: t.TaskID, Edge: e, Parent: edge.Parent, Index: edge.Index,
		Feedback: par.Exec.Feedback, Diagnosis: par.Diagnosis, Edit: edge.Edit.Text,
		PassRate: par.Exec.PassRate, FailedFrac: par.Exec.FailedFrac,
		Depth: par.Depth, MaxDepth: d, ProgramLen: len(par.Program),
		Remaining: d - par.Depth,
	}
}

// ensureScored scores every edge of fr not scored yet, in one call.
func (ep *learnedEpisode) ensureScored(ctx context.Context, fr []corpus.EdgeID) error {
	for len(ep.score) < len(ep.t.Edges) {
		ep.score = append(ep.score, 0)
		ep.has = append(ep.has, false)
	}
	var ids []corpus.EdgeID
	var in []EdgeInput
	for _, e := range fr {
		if !ep.has[e] {
			ids = append(ids, e)
			in = append(in, Input(ep.t, e))
		}
	}
	if len(in) == 0 {
		return nil
	}
	out, err := ep.scorer.Score(ctx, in)
	if err != nil {
		return fmt.Errorf("learned: score %d edges: %w", len(in), err)
	}
	if len(out) != len(in) {
		return fmt.Errorf("learned: scorer returned %d distributions for %d edges", len(out), len(in))
	}
	for i, e := range ids {
		if err := out[i].Validate(); err != nil {
			return fmt.Errorf("learned: edge %d: %w", e, err)
		}
		ep.score[e] = out[i].Priority(in[i].Remaining)
		ep.has[e] = true
	}
	return nil
}

func (ep *learnedEpisode) Ask(frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	return ep.AskContext(context.Background(), frontier, n)
}

// AskContext implements ContextAsker.
func (ep *learnedEpisode) AskContext(ctx context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	fr, err := ep.beginAsk(frontier, n, ep.buf)
	ep.buf = fr
	if err != nil || len(fr) == 0 {
		return nil, err
	}
	if err := ep.ensureScored(ctx, fr); err != nil {
		return nil, err
	}
	ep.items = ep.items[:0]
	for _, e := range fr {
		ep.items = append(ep.items, scored{ep.score[e], ep.parentDepth(e), e})
	}
	return topN(ep.items, n, nil), nil
}

// Priorities implements Ranker.
func (ep *learnedEpisode) Priorities(ctx context.Context, frontier []corpus.EdgeID) ([]float64, error) {
	ep.growEdges()
	for _, e := range frontier {
		if e < 0 || int(e) >= len(ep.t.Edges) {
			return nil, errEdgeRange(e, len(ep.t.Edges))
		}
	}
	if err := ep.ensureScored(ctx, frontier); err != nil {
		return nil, err
	}
	out := make([]float64, len(frontier))
	for i, e := range frontier {
		out[i] = ep.score[e]
	}
	return out, nil
}

func (ep *learnedEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	_, err := ep.tell(e, child)
	return err
}
