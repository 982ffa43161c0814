// Package search runs repair searches, live or replayed, local or served.
//
// This package is the engine: a Frontier of unexpanded edges across every
// program of a tree; Session, the one ask–tell loop (a policy's episode
// chooses edges, whoever expands them tells the children back, within a
// budget); Run, which drives a Session over an Env; and the two Envs,
// Replay (reveal a recorded child) and Live (revise with a proposer, test
// with an executor). A search stops at the first fix, the budget or an
// empty frontier; the last two are results (Result.End), not errors.
//
// Below it, one job per package: sandbox executes programs against their
// tests; proposer/mutate and proposer/openai propose and apply edits; tsapr
// is the seed method (TSAPR) that learned search is compared against; eval
// replays policies over corpora and scores them (eval/report renders the
// scores); serve serves sessions over HTTP, with its wire types and Go
// client in serve/api.
//
// Imports: corpus and policy (and model/priority, the type of the
// distributions a trace records); never its subpackages.
package search

import (
	"context"
	"fmt"

	"triage/corpus"
	"triage/model/priority"
	"triage/policy"
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
	// End says why the search ended: Solved, BudgetExhausted or
	// FrontierEmpty.
	End        State         `json:"-"`
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
// an empty frontier: it drives a Session, expanding each asked edge with
// env. A search that ends without a fix is a result (Result.End says why),
// not an error; the error is for a failing policy or environment, or a
// cancelled ctx (the result holds what was searched in every case).
func Run(ctx context.Context, env Env, p policy.Policy, cfg Config) (Result, error) {
	t := env.Tree()
	sess, err := NewSession(t, p, SessionConfig{Budget: cfg.Budget, Seed: cfg.Seed, Expandable: env.Expandable})
	if err != nil {
		return Result{}, err
	}
	batch := max(cfg.Batch, 1)
	res := Result{Policy: p.Name(), TreeID: t.ID, TaskID: t.TaskID, Seed: cfg.Seed, Fix: corpus.NoNode}
	tr := tracer{on: cfg.Trace, ep: sess.Episode()}
	for {
		res.Tokens, res.Fix, res.End = sess.Tokens(), sess.Fix(), sess.State()
		res.Solved = res.End == Solved
		if res.End != Running {
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("search %s: %w", t.ID, err)
		}
		tr.before(sess.Frontier())
		chosen, err := sess.Ask(ctx, batch)
		if err != nil {
			return res, fmt.Errorf("search %s: %w", t.ID, err)
		}
		for _, e := range chosen {
			if err := tr.record(ctx, &res); err != nil {
				return res, fmt.Errorf("search %s: policy %s: priorities: %w", t.ID, p.Name(), err)
			}
			c, err := env.Expand(ctx, e)
			if err != nil {
				return res, fmt.Errorf("search %s: expand edge %d: %w", t.ID, e, err)
			}
			res.Order = append(res.Order, e)
			res.Children = append(res.Children, c)
			res.Expansions++
			if err := sess.Tell(e, c); err != nil {
				return res, fmt.Errorf("search %s: %w", t.ID, err)
			}
			if sess.Fix() != corpus.NoNode {
				break
			}
		}
	}
}

// tracer records, with Config.Trace, the frontier before every expansion
// (for a batch, the frontier its edges were asked from) and the episode's
// priorities and distributions over it.
type tracer struct {
	on   bool
	ep   policy.Episode
	snap []corpus.EdgeID
}

// before takes the frontier an Ask is about to choose from.
func (tr *tracer) before(fr []corpus.EdgeID) {
	if tr.on {
		tr.snap = append([]corpus.EdgeID(nil), fr...)
	}
}

// record adds the frontier of the next expansion to res.
func (tr *tracer) record(ctx context.Context, res *Result) error {
	if !tr.on {
		return nil
	}
	snap := tr.snap
	res.Frontiers = append(res.Frontiers, snap)
	ranker, ok := tr.ep.(policy.Ranker)
	if !ok {
		return nil
	}
	pr, err := ranker.Priorities(ctx, snap)
	if err != nil {
		return err
	}
	res.Priorities = append(res.Priorities, pr)
	if dists, ok := tr.ep.(policy.DistReporter); ok {
		ds := make([]priority.Dist, len(snap))
		for j, fe := range snap {
			ds[j] = dists.Dist(fe)
		}
		res.Dists = append(res.Dists, ds)
	}
	return nil
}
