package policy

import (
	"context"
	"errors"
	"fmt"

	"triage/corpus"
	"triage/model/priority"
)

// Scorer rates frontier edges: one distribution over the solve distance per
// edge, in order (priority.Dist; D+1 entries for an edge whose MaxDepth is
// D). It does not keep or modify edges. Its error is for cancellation and
// infrastructure; the learned policy calls it once per batch of edges that
// join the frontier and never again for the same edge.
type Scorer interface {
	Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error)
}

// ScoreFunc adapts a function to Scorer.
type ScoreFunc func(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error)

// Score calls f.
func (f ScoreFunc) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	return f(ctx, edges)
}

// Learned is CodeTriage's best-first policy (docs/design.md "The priority model and s(e)"): the
// Scorer gives a distribution over the solve distance of each edge, once,
// when the edge joins the frontier; the episode expands the edge of highest
// s(e) = (1/b) Σ_{m≤b} F(m), ties by parent depth ascending, then the edge's
// place in the tree, then EdgeID (compareScored).
type Learned struct {
	scorer   Scorer
	p1       bool
	perDepth bool
	name     string
}

// LearnedOption changes how the learned policy ranks (the ablations of
// CodeTriage's Table 1).
type LearnedOption func(*Learned)

// ScoreByP1 ranks edges by p1 = P(t = 1), the probability that the child
// itself is a fix, instead of s(e).
func ScoreByP1() LearnedOption { return func(l *Learned) { l.p1 = true } }

// RankWithinDepth expands the shallowest frontier depth first and uses the
// model only to order edges within one depth: scores are never compared
// across depths.
func RankWithinDepth() LearnedOption { return func(l *Learned) { l.perDepth = true } }

// LearnedName sets the policy's reported name (default "learned").
func LearnedName(name string) LearnedOption { return func(l *Learned) { l.name = name } }

// NewLearned returns the learned policy over scorer.
func NewLearned(scorer Scorer, opts ...LearnedOption) (Policy, error) {
	if scorer == nil {
		return nil, errors.New("policy learned: nil scorer")
	}
	l := Learned{scorer: scorer, name: "learned"}
	for _, o := range opts {
		o(&l)
	}
	return l, nil
}

// Name implements Policy.
func (p Learned) Name() string { return p.name }

// Start implements Policy.
func (p Learned) Start(t *corpus.Tree, seed uint64) Episode {
	return &learnedEpisode{base: newBase(t, seed), edgeScores: edgeScores{scorer: p.scorer}, p1: p.p1, perDepth: p.perDepth}
}

type learnedEpisode struct {
	base
	edgeScores
	p1       bool
	perDepth bool
	items    []scored
	buf      []corpus.EdgeID
}

// edgeScores holds the Scorer's output per edge of one episode: each edge
// is scored once, when it first appears in a frontier (learned, hybrid).
type edgeScores struct {
	scorer Scorer
	score  []float64       // by EdgeID: s(e), or p1 with the ScoreByP1 option
	dist   []priority.Dist // by EdgeID
	has    []bool          // by EdgeID: scored
}

// Dist returns the model's distribution over the solve distance of edge e,
// once e has been scored (nil before). Reports show it.
func (ep *edgeScores) Dist(e corpus.EdgeID) priority.Dist {
	if e < 0 || int(e) >= len(ep.dist) {
		return nil
	}
	return ep.dist[e]
}

// DistReporter is implemented by episodes that hold a predicted
// solve-distance distribution per scored edge (the learned policy).
type DistReporter interface {
	Dist(e corpus.EdgeID) priority.Dist
}

// Input is the one function that turns edge e of t into the priority
// model's input; training examples and scoring inputs both come from it.
func Input(t *corpus.Tree, e corpus.EdgeID) priority.Edge {
	edge := &t.Edges[e]
	par := &t.Nodes[edge.Parent]
	d := maxDepth(t)
	prev := ""
	if par.ViaEdge >= 0 && int(par.ViaEdge) < len(t.Edges) {
		prev = t.Edges[par.ViaEdge].Edit.Text
	}
	return priority.Edge{
		Feedback: par.Exec.Feedback, Diagnosis: par.Diagnosis, Edit: edge.Edit.Text, Program: par.Program, ParentEdit: prev,
		PassRate: par.Exec.PassRate, FailedFrac: par.Exec.FailedFrac,
		Depth: par.Depth, MaxDepth: d, ProgramLen: len(par.Program),
		Remaining: d - par.Depth, Tests: len(par.Exec.Tests), ProposerScore: edge.Edit.Score,
	}
}

// ensureScored scores every edge of fr not scored yet, in one call.
func (ep *learnedEpisode) ensureScored(ctx context.Context, fr []corpus.EdgeID) error {
	return ep.edgeScores.ensure(ctx, ep.t, fr, func(e corpus.EdgeID, d priority.Dist, s float64) float64 {
		if ep.p1 {
			s = d.P1()
		}
		if ep.perDepth {
			// s and p1 lie in [0, 1]: a shallower parent always ranks first.
			s -= 2 * float64(ep.parentDepth(e))
		}
		return s
	})
}

// ensure scores every edge of fr (validated edges of t) not scored yet, in
// one Scorer call, and stores rank(e, dist, s(e)) as its score.
func (ep *edgeScores) ensure(ctx context.Context, t *corpus.Tree, fr []corpus.EdgeID, rank func(corpus.EdgeID, priority.Dist, float64) float64) error {
	for len(ep.score) < len(t.Edges) {
		ep.score = append(ep.score, 0)
		ep.dist = append(ep.dist, nil)
		ep.has = append(ep.has, false)
	}
	var ids []corpus.EdgeID
	var in []priority.Edge
	for _, e := range fr {
		if !ep.has[e] {
			ids = append(ids, e)
			in = append(in, Input(t, e))
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
		if len(out[i]) != in[i].MaxDepth+1 {
			return fmt.Errorf("learned: edge %d: %d bins for depth limit %d", e, len(out[i]), in[i].MaxDepth)
		}
		sc, err := out[i].S(in[i].Remaining)
		if err != nil {
			return fmt.Errorf("learned: edge %d: %w", e, err)
		}
		if rank != nil {
			sc = rank(e, out[i], sc)
		}
		ep.score[e] = sc
		ep.dist[e] = out[i]
		ep.has[e] = true
	}
	return nil
}

// Ask implements Episode; ctx bounds the Scorer call for edges new to the frontier.
func (ep *learnedEpisode) Ask(ctx context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
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
		ep.items = append(ep.items, scored{ep.score[e], ep.parentDepth(e), ep.siblingPath(e), e})
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
