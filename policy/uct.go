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
// range [0.5, 1.0)) and beta (default 0.8).
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
	ep := &uctEpisode{treeBase: treeBase{base: newBase(t, seed)}, p: p}
	ep.growNodes()
	ep.v[0] = uctReward(t.Root())
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
	p UCT
	v []float64 // by NodeID: value V
	n []int32   // by NodeID: visits N
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
		best, bestVal, ties := corpus.NoNode, math.Inf(-1), 0
		lnN := math.Log(float64(max(ep.n[v], 1)))
		for _, c := range ep.kids[v] {
			if ep.fi.openCount(c) == 0 {
				continue
			}
			val := ep.v[c] + 1
			if ep.n[c] > 0 {
				val = ep.v[c] + ep.p.C*math.Sqrt(2*lnN/float64(ep.n[c]))
			}
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
		if best == corpus.NoNode {
			return ep.fallbackPending(v)
		}
		v = best
	}
}

func (ep *uctEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	ep.growNodes()
	fresh, p, err := ep.tellTree(e, child)
	if err != nil || !fresh {
		return err
	}
	ep.v[child.ID] = uctReward(child)
	for u := p; u != corpus.NoNode; u = ep.t.Nodes[u].Parent {
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
	return nil
}
