// Package search runs repair search: a frontier of unexpanded edges across
// every program of a tree, a policy.Episode that chooses the next edge (or
// batch of edges), and an Env that serves each expansion, either by
// revealing a recorded child (Replay) or by calling a proposer and an
// executor (Live). The loop stops at the first fix or at the budget and
// records the expansion order, the cost and the output tokens.
package search

import (
	"context"
	"errors"
	"fmt"

	"triage/corpus"
	"triage/model/priority"
	"triage/policy"
)

// Sentinel ends of a search that found no fix; callers use errors.Is.
var (
	// ErrBudgetExhausted: the budget of expansions was spent without a fix.
	ErrBudgetExhausted = errors.New("search: budget exhausted")
	// ErrFrontierEmpty: no edge was left to expand and no fix was found.
	ErrFrontierEmpty = errors.New("search: frontier empty")
)

// Env serves expansions of one tree.
type Env interface {
	// Tree is the tree so far; its root exists before the search starts.
	// A live Env appends nodes and edges to it as the search goes; ids stay
	// valid.
	Tree() *corpus.Tree
	// Expandable reports whether edge e may join the frontier (a replay
	// can only reveal edges whose child was recorded).
	Expandable(e corpus.EdgeID) bool
	// Expand expands e and returns the id of its child node, whose edges
	// (if any) exist once Expand returns.
	Expand(ctx context.Context, e corpus.EdgeID) (corpus.NodeID, error)
}

// Config bounds a search.
type Config struct {
	// Budget is the most expansions; 0 means no limit.
	Budget int
	// Batch is the number of edges asked for at once (default 1). The
	// edges of a batch are expanded in order; the search stops at the
	// first fix among them.
	Batch int
	// Seed seeds the policy's episode.
	Seed uint64
	// Trace records the frontier before every expansion.
	Trace bool
}

// Result is the record of one search.
type Result struct {
	Policy string `json:"policy"`
	TreeID string `json:"tree_id"`
	TaskID string `json:"task_id"`
	Seed   uint64 `json:"seed"`
	// Order lists the expanded edges; Children their child nodes.
	Order    []corpus.EdgeID `json:"order"`
	Children []corpus.NodeID `json:"children"`
	// Solved reports a fix; Fix is the first solved node (NoNode if none)
	// and Expansions the number of expansions through it (or in all).
	Solved     bool          `json:"solved"`
	Fix        corpus.NodeID `json:"fix"`
	Expansions int           `json:"expansions"`
	// Tokens are the output tokens spent: the root's proposal plus each
	// expansion's revision and proposal (corpus.Tree.EdgeTokens).
	Tokens int `json:"tokens"`
	// Frontiers[i] is the frontier before expansion i (with Config.Trace).
	Frontiers [][]corpus.EdgeID `json:"frontiers,omitempty"`
	// Priorities[i][j] is the policy's priority of Frontiers[i][j], when
	// the episode is a policy.Ranker (with Config.Trace).
	Priorities [][]float64 `json:"priorities,omitempty"`
	// Dists[i][j] is the predicted solve-distance distribution of
	// Frontiers[i][j], when the episode is a policy.DistReporter (the
	// learned policy; with Config.Trace).
	Dists [][]priority.Dist `json:"dists,omitempty"`
}

// Outcome converts r to the metric record of policy.Summarize.
func (r Result) Outcome() policy.Outcome {
	return policy.Outcome{TaskID: r.TaskID, TreeID: r.TreeID, Seed: r.Seed, Solved: r.Solved, T: r.Expansions, Tokens: r.Tokens}
}

// Frontier is a set of edges with O(1) add and remove: the frontier of
// Run, and of the server's sessions, which must order it as Run does.
type Frontier struct {
	edges []corpus.EdgeID
	pos   []int32 // by EdgeID: index in edges, or -1
}

// Edges returns the edges in the set; the slice is the set's own.
func (f *Frontier) Edges() []corpus.EdgeID { return f.edges }

// Add adds e (a no-op when present).
func (f *Frontier) Add(e corpus.EdgeID) {
	for len(f.pos) <= int(e) {
		f.pos = append(f.pos, -1)
	}
	if f.pos[e] >= 0 {
		return
	}
	f.pos[e] = int32(len(f.edges))
	f.edges = append(f.edges, e)
}

// Remove removes e and reports whether it was present.
func (f *Frontier) Remove(e corpus.EdgeID) bool {
	if e < 0 || int(e) >= len(f.pos) || f.pos[e] < 0 {
		return false
	}
	i := f.pos[e]
	last := f.edges[len(f.edges)-1]
	f.edges[i] = last
	f.pos[last] = i
	f.edges = f.edges[:len(f.edges)-1]
	f.pos[e] = -1
	return true
}

// Run searches env's tree with policy p until the first fix, the budget or
// an empty frontier. It returns the result and nil on a fix,
// ErrBudgetExhausted or ErrFrontierEmpty without one (the result is filled
// in every case), or another error when the policy or the environment fails.
func Run(ctx context.Context, env Env, p policy.Policy, cfg Config) (Result, error) {
	t := env.Tree()
	if t == nil || len(t.Nodes) == 0 {
		return Result{}, errors.New("search: tree has no root")
	}
	batch := max(cfg.Batch, 1)
	res := Result{Policy: p.Name(), TreeID: t.ID, TaskID: t.TaskID, Seed: cfg.Seed, Fix: corpus.NoNode}
	root := t.Root()
	res.Tokens = root.ProposeTokens
	if root.Solved() {
		res.Solved, res.Fix = true, root.ID
		return res, nil
	}
	ep := p.Start(t, cfg.Seed)
	ranker, _ := ep.(policy.Ranker)
	dists, _ := ep.(policy.DistReporter)
	var fr Frontier
	for _, e := range root.Edges {
		if env.Expandable(e) {
			fr.Add(e)
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("search %s: %w", t.ID, err)
		}
		if len(fr.edges) == 0 {
			return res, ErrFrontierEmpty
		}
		if cfg.Budget > 0 && res.Expansions >= cfg.Budget {
			return res, ErrBudgetExhausted
		}
		n := batch
		if cfg.Budget > 0 {
			n = min(n, cfg.Budget-res.Expansions)
		}
		chosen, err := ep.Ask(ctx, fr.edges, n)
		if err != nil {
			return res, fmt.Errorf("search %s: policy %s: %w", t.ID, p.Name(), err)
		}
		if len(chosen) == 0 {
			return res, fmt.Errorf("search %s: policy %s chose nothing from a frontier of %d", t.ID, p.Name(), len(fr.edges))
		}
		for _, e := range chosen {
			if cfg.Trace {
				snap := append([]corpus.EdgeID(nil), fr.edges...)
				res.Frontiers = append(res.Frontiers, snap)
				if ranker != nil {
					pr, err := ranker.Priorities(ctx, snap)
					if err != nil {
						return res, fmt.Errorf("search %s: policy %s: priorities: %w", t.ID, p.Name(), err)
					}
					res.Priorities = append(res.Priorities, pr)
					if dists != nil {
						ds := make([]priority.Dist, len(snap))
						for j, fe := range snap {
							ds[j] = dists.Dist(fe)
						}
						res.Dists = append(res.Dists, ds)
					}
				}
			}
			if !fr.Remove(e) {
				return res, fmt.Errorf("search %s: policy %s chose edge %d outside the frontier", t.ID, p.Name(), e)
			}
			c, err := env.Expand(ctx, e)
			if err != nil {
				return res, fmt.Errorf("search %s: expand edge %d: %w", t.ID, e, err)
			}
			t = env.Tree() // a live tree may have been reallocated
			child := t.Node(c)
			res.Order = append(res.Order, e)
			res.Children = append(res.Children, c)
			res.Expansions++
			res.Tokens += t.EdgeTokens(e)
			if err := ep.Tell(e, child); err != nil {
				return res, fmt.Errorf("search %s: policy %s: %w", t.ID, p.Name(), err)
			}
			if child.Solved() {
				res.Solved, res.Fix = true, c
				return res, nil
			}
			for _, ce := range child.Edges {
				if env.Expandable(ce) {
					fr.Add(ce)
				}
			}
		}
	}
}
