package policy

import (
	"cmp"
	"context"
	"slices"

	"triage/corpus"
)

// scored is one frontier edge with its priority and tie-break keys.
type scored struct {
	score float64
	depth int
	path  uint64 // base.siblingPath
	edge  corpus.EdgeID
}

// compareScored is the total order of priority policies: score descending,
// then parent depth ascending, then the edge's place in the tree
// (base.siblingPath), then EdgeID ascending. The place comes before the id
// because a replay numbers a recorded tree's edges breadth-first and a live
// search or a served session numbers them as they are expanded: ties must
// fall the same way in both.
func compareScored(a, b scored) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.depth, b.depth); c != 0 {
		return c
	}
	if c := cmp.Compare(a.path, b.path); c != 0 {
		return c
	}
	return cmp.Compare(a.edge, b.edge)
}

// topN returns the n best of items under compareScored, best first. It
// reorders items.
func topN(items []scored, n int, out []corpus.EdgeID) []corpus.EdgeID {
	if n >= len(items) || n > 8 {
		slices.SortFunc(items, compareScored)
		if n > len(items) {
			n = len(items)
		}
		for _, it := range items[:n] {
			out = append(out, it.edge)
		}
		return out
	}
	for i := 0; i < n; i++ { // partial selection sort: O(n·F) for small n
		best := i
		for j := i + 1; j < len(items); j++ {
			if compareScored(items[j], items[best]) < 0 {
				best = j
			}
		}
		items[i], items[best] = items[best], items[i]
		out = append(out, items[i].edge)
	}
	return out
}

// priorityEpisode expands the frontier edge of highest priority. prio is
// called once per frontier edge per Ask; salt is drawn from the episode's
// random source once per Ask (only random uses it).
type priorityEpisode struct {
	base
	prio  func(ep *priorityEpisode, e corpus.EdgeID, salt uint64) float64
	items []scored
	buf   []corpus.EdgeID
}

func (ep *priorityEpisode) Ask(_ context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	fr, err := ep.beginAsk(frontier, n, ep.buf)
	ep.buf = fr
	if err != nil || len(fr) == 0 {
		return nil, err
	}
	salt := ep.rng.Uint64()
	ep.items = ep.items[:0]
	for _, e := range fr {
		ep.items = append(ep.items, scored{ep.prio(ep, e, salt), ep.parentDepth(e), ep.siblingPath(e), e})
	}
	return topN(ep.items, n, nil), nil
}

func (ep *priorityEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	_, err := ep.tell(e, child)
	return err
}

// Priorities implements Ranker. For random the values are those of a fresh
// draw and do not predict the next Ask.
func (ep *priorityEpisode) Priorities(_ context.Context, frontier []corpus.EdgeID) ([]float64, error) {
	ep.growEdges()
	out := make([]float64, len(frontier))
	for i, e := range frontier {
		if e < 0 || int(e) >= len(ep.t.Edges) {
			return nil, errEdgeRange(e, len(ep.t.Edges))
		}
		out[i] = ep.prio(ep, e, 0)
	}
	return out, nil
}

// simplePolicy is a priority policy without hyperparameters.
type simplePolicy struct {
	name string
	prio func(ep *priorityEpisode, e corpus.EdgeID, salt uint64) float64
}

func (p simplePolicy) Name() string { return p.name }

func (p simplePolicy) Start(t *corpus.Tree, seed uint64) Episode {
	return &priorityEpisode{base: newBase(t, seed), prio: p.prio}
}

// NewRandom returns the uniform-random policy: every Ask picks uniformly
// among the frontier edges (docs/baselines.md "Simple orders"; the random baseline of
// CodeTriage). To be independent of the frontier's order it ranks edges by
// a hash of (a per-Ask draw of the episode's generator, EdgeID). No
// hyperparameters.
func NewRandom(params Params) (Policy, error) {
	if err := params.check("random"); err != nil {
		return nil, err
	}
	return simplePolicy{"random", func(_ *priorityEpisode, e corpus.EdgeID, salt uint64) float64 {
		return float64(mix64(salt^uint64(e)*0x9e3779b97f4a7c15) >> 11)
	}}, nil
}

// NewBFS returns breadth-first search: the shallowest parent first, then
// the edge's place in the tree (compareScored; the lowest EdgeID of a
// recorded tree, whose edges are numbered in the order their parents were
// proposed), so this is the FIFO order of REx's bfs scheduler
// (docs/baselines.md "Simple orders"). No hyperparameters.
func NewBFS(params Params) (Policy, error) {
	if err := params.check("bfs"); err != nil {
		return nil, err
	}
	return simplePolicy{"bfs", func(*priorityEpisode, corpus.EdgeID, uint64) float64 { return 0 }}, nil
}

// NewDFS returns depth-first search: the deepest parent first, then the
// lowest EdgeID. In a tree explored this way only the nodes on the current
// path have pending edges, one per depth, so this is exactly LIFO order
// with siblings in the proposer's order. No hyperparameters.
func NewDFS(params Params) (Policy, error) {
	if err := params.check("dfs"); err != nil {
		return nil, err
	}
	return simplePolicy{"dfs", func(ep *priorityEpisode, e corpus.EdgeID, _ uint64) float64 {
		return float64(ep.parentDepth(e))
	}}, nil
}

// NewPassRate returns the greedy policy on the parent's pass rate: the edge
// whose parent passes the most tests first, ties shallower then lower
// EdgeID (REx's greedy scheduler, acr/scheduler/greedy.py, argmax of the
// heuristic with no visit penalty, docs/baselines.md "Simple orders"). A parent
// that did not load has pass rate 0. No hyperparameters.
func NewPassRate(params Params) (Policy, error) {
	if err := params.check("passrate"); err != nil {
		return nil, err
	}
	return simplePolicy{"passrate", func(ep *priorityEpisode, e corpus.EdgeID, _ uint64) float64 {
		return ep.t.Nodes[ep.t.Edges[e].Parent].Exec.PassRate
	}}, nil
}

// mix64 is the splitmix64 finalizer: a bijective hash of 64 bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
