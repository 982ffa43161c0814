package policy

import (
	"context"
	"fmt"
	"math"

	"triage/corpus"
)

// ABMCTS is AB-MCTS-A, adaptive branching MCTS with node aggregation
// (Inoue et al., arXiv 2503.04412; SakanaAI/treequest
// src/treequest/algos/ab_mcts_a, docs/baselines.md "abmcts").
//
// Every node keeps three kinds of Thompson arms: GEN (widen: generate a new
// child here), CONT (go deeper into an existing child), and one arm per
// existing child. Selection starts at the root; a node without children
// GENs; otherwise GEN and CONT are each sampled and GEN wins ties; on CONT
// the child with the largest sample is entered. Reward is the pass rate
// (0 for a program that did not load), in [0, 1] as TreeQuest requires.
// On a new child c of P with reward r: c's own arm is initialised with r,
// P.GEN gets r, and for every ancestor edge A → X from X = P upward, X's
// own arm and A.CONT get r.
//
// Mapping: "generate a new child of v" is expanding v's pending edit with
// the lowest index; a node with no pending edit cannot GEN (CONT is forced),
// and children whose subtree has no pending edit are not entered (our trees
// are finite). There is a single generation action, so TreeQuest's
// per-action arms are omitted. The distribution is "gaussian" (default,
// Normal-Inverse-χ² with m=0, κ=1, ν=1, τ²=0.1) or "beta" (Jeffreys
// Beta(0.5, 0.5)), chosen by the hyperparameter beta = 0 or 1.
type ABMCTS struct {
	Beta bool
}

// NewABMCTS returns AB-MCTS-A with params {"beta": 0 (Gaussian, default)
// or 1 (Beta)}.
func NewABMCTS(params Params) (Policy, error) {
	if err := params.check("abmcts", "beta"); err != nil {
		return nil, err
	}
	b := params.get("beta", 0)
	if b != 0 && b != 1 {
		return nil, fmt.Errorf("policy abmcts: beta = %v, want 0 (gaussian) or 1 (beta)", b)
	}
	return ABMCTS{Beta: b == 1}, nil
}

// Name implements Policy.
func (p ABMCTS) Name() string { return "abmcts" }

// Start implements Policy.
func (p ABMCTS) Start(t *corpus.Tree, seed uint64) Episode {
	return &abmctsEpisode{treeBase: treeBase{base: newBase(t, seed)}, beta: p.Beta}
}

type abmctsEpisode struct {
	treeBase
	beta bool
	gen  []posterior // by NodeID
	cont []posterior // by NodeID
	own  []posterior // by NodeID: the node's arm at its parent
}

func (ep *abmctsEpisode) growNodes() {
	ep.treeBase.growNodes()
	for len(ep.gen) < len(ep.t.Nodes) {
		ep.gen = append(ep.gen, posterior{})
		ep.cont = append(ep.cont, posterior{})
		ep.own = append(ep.own, posterior{})
	}
}

func (ep *abmctsEpisode) sample(p *posterior) float64 {
	if ep.beta {
		return p.sampleBeta(ep.rng)
	}
	return p.sampleGaussian(ep.rng)
}

func (ep *abmctsEpisode) Ask(_ context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	ep.growNodes()
	return ep.askTree(frontier, n, ep.pick)
}

func (ep *abmctsEpisode) pick() corpus.EdgeID {
	v := corpus.NodeID(0)
	for {
		e, canGen := ep.fi.pending(ep.t, v)
		if canGen && len(ep.kids[v]) == 0 {
			return e
		}
		hasOpen := false
		for _, c := range ep.kids[v] {
			if ep.fi.openCount(c) > 0 {
				hasOpen = true
				break
			}
		}
		if canGen && (!hasOpen || ep.sample(&ep.gen[v]) >= ep.sample(&ep.cont[v])) {
			return e
		}
		best, bestDraw := corpus.NoNode, math.Inf(-1)
		for _, c := range ep.kids[v] {
			if ep.fi.openCount(c) == 0 {
				continue
			}
			if d := ep.sample(&ep.own[c]); d > bestDraw {
				best, bestDraw = c, d
			}
		}
		if best == corpus.NoNode {
			return ep.fallbackPending(v)
		}
		v = best
	}
}

func (ep *abmctsEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	ep.growNodes()
	fresh, p, err := ep.tellTree(e, child)
	if err != nil || !fresh {
		return err
	}
	r := child.Exec.PassRate
	if !loads(child) {
		r = 0
	}
	ep.own[child.ID].tell(r)
	ep.gen[p].tell(r)
	for x := p; ep.t.Nodes[x].Parent != corpus.NoNode; x = ep.t.Nodes[x].Parent {
		ep.own[x].tell(r)
		ep.cont[ep.t.Nodes[x].Parent].tell(r)
	}
	return nil
}
