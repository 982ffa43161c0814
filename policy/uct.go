package policy

import (
	"context"
	"fmt"
	"math"

	"triage/corpus"
)

// UCT is the tree search of TSAPR/APRMCTS (Hu et al., ASE 2025;
// Tomsawyerhu/APR-MCTS mcts.py and condefects_mcts.py,
// docs/baselines.md "uct").
//
// Selection descends from the root while the node is fully expanded (it has
// no pending edit) and otherwise expands the node's next pending edit, so a
// node's k edits are expanded one after another, the counterpart of
// APRMCTS's one batch that generates all children. Among children it takes
// the maximum of V_c + C·sqrt(2·ln N_v / N_c), where a child never itself
// expanded (N_c = 0) scores V_c + 1 (mcts_inf); ties are broken uniformly
// at random. Children whose subtree has no pending edit are skipped (APRMCTS
// has no depth limit; our trees do).
//
// Rewards are the test pass rate (the ConDefects variant) and −1 for a
// program that did not load or was not produced (the Defects4J "ERROR"
// case). A new child starts with V = its reward and N = 0. Backpropagation
// runs from the expanded node to the root: N += 1, and when some child has
// N_c > 0, V ← β·(Σ V_c·N_c / Σ N_c) + (1 − β)·V with β = 0.8. Since each
// of our expansions generates one child, N counts child generations rather
// than APRMCTS's batches.
//
// Hyperparameters: C (default 0.7, APRMCTS's exploration constant, CLI
// range [0.5, 1.0)) and beta (default 0.8). UCTExpansion runs the same
// selection and update once per batch of children, as TSAPR live does.
type UCT struct {
	C, Beta float64
}

// NewUCT returns UCT with params {"C", "beta"}.
func NewUCT(params Params) (Policy, error) {
	if err := params.check("uct", "C", "beta"); err != nil {
		return nil, err
	}
	p := UCT{C: params.get("C", 0.7), Beta: params.get("beta", 0.8)}
	if p.C < 0 {
		return nil, fmt.Errorf("policy uct: C = %v, want >= 0", p.C)
	}
	if p.Beta < 0 || p.Beta > 1 {
		return nil, fmt.Errorf("policy uct: beta = %v, want in [0, 1]", p.Beta)
	}
	return p, nil
}

// Name implements Policy.
func (p UCT) Name() string { return "uct" }

// Start implements Policy.
func (p UCT) Start(t *corpus.Tree, seed uint64) Episode {
	return p.start(newBase(t, seed), uctReward)
}

// start begins an episode on b whose rewards are reward's.
func (p UCT) start(b base, reward func(*corpus.Node) float64) *uctEpisode {
	ep := &uctEpisode{treeBase: treeBase{base: b}, p: p, reward: reward}
	ep.growNodes()
	ep.v[0] = reward(b.t.Root())
	return ep
}

func uctReward(n *corpus.Node) float64 {
	if !loads(n) {
		return -1
	}
	return n.Exec.PassRate
}

type uctEpisode struct {
	treeBase
	p      UCT
	reward func(*corpus.Node) float64
	v      []float64 // by NodeID: value V
	n      []int32   // by NodeID: visits N
}

func (ep *uctEpisode) growNodes() {
	ep.treeBase.growNodes()
	for len(ep.v) < len(ep.t.Nodes) {
		ep.v = append(ep.v, 0)
		ep.n = append(ep.n, 0)
	}
}

func (ep *uctEpisode) Ask(_ context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	ep.growNodes()
	return ep.askTree(frontier, n, ep.pick)
}

func (ep *uctEpisode) pick() corpus.EdgeID {
	v := corpus.NodeID(0)
	for {
		if e, ok := ep.fi.pending(ep.t, v); ok {
			return e
		}
		best := ep.bestChild(v)
		if best == corpus.NoNode {
			return ep.fallbackPending(v)
		}
		v = best
	}
}

// bestChild is the child of v with the largest uctValue among those whose
// subtree holds a pending edge (NoNode when none does), ties broken
// uniformly at random.
func (ep *uctEpisode) bestChild(v corpus.NodeID) corpus.NodeID {
	best, bestVal, ties := corpus.NoNode, math.Inf(-1), 0
	lnN := math.Log(float64(max(ep.n[v], 1)))
	for _, c := range ep.kids[v] {
		if ep.fi.openCount(c) == 0 {
			continue
		}
		val := uctValue(ep.v[c], ep.n[c], lnN, ep.p.C)
		switch {
		case val > bestVal:
			best, bestVal, ties = c, val, 1
		case val == bestVal:
			ties++
			if ep.rng.IntN(ties) == 0 {
				best = c
			}
		}
	}
	return best
}

func (ep *uctEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	fresh, p, err := ep.record(e, child)
	if err != nil || !fresh {
		return err
	}
	ep.backup(p)
	return nil
}

// record takes a Tell's child with V = its reward and N = 0, and returns
// whether the tell was fresh and the child's parent.
func (ep *uctEpisode) record(e corpus.EdgeID, child *corpus.Node) (bool, corpus.NodeID, error) {
	ep.growNodes()
	fresh, p, err := ep.tellTree(e, child)
	if err != nil || !fresh {
		return false, 0, err
	}
	ep.v[child.ID] = ep.reward(child)
	return true, p, nil
}

// uctValue is the selection value of a child with value v and visits n
// under a parent with ln N = lnNParent: v + C·sqrt(2·ln N / n), or v + 1
// for n = 0 (mcts_inf).
func uctValue(v float64, n int32, lnNParent, c float64) float64 {
	if n == 0 {
		return v + 1
	}
	return v + c*math.Sqrt(2*lnNParent/float64(n))
}

// backup updates the values from the expanded node v to the root: N += 1
// and, when some child has been visited, V ← β·(Σ V_c·N_c / Σ N_c) +
// (1 − β)·V.
func (ep *uctEpisode) backup(v corpus.NodeID) {
	for u := v; u != corpus.NoNode; u = ep.t.Nodes[u].Parent {
		ep.n[u]++
		var sum, cnt float64
		for _, c := range ep.kids[u] {
			sum += ep.v[c] * float64(ep.n[c])
			cnt += float64(ep.n[c])
		}
		if cnt > 0 {
			ep.v[u] = ep.p.Beta*(sum/cnt) + (1-ep.p.Beta)*ep.v[u]
		}
	}
}
