package policy

import (
	"context"
	"fmt"
	"math"

	"triage/corpus"
)

// BGMCTS is budget-guided MCTS (Miyamoto, Oba, Okazaki, arXiv 2602.09574;
// Sora-Miyamoto/bg-mcts treesearch/src/treesearch/algos/bg_mcts.py,
// docs/baselines.md "bgmcts"), with the budget counted in expansions:
// u = expansions used / Budget, clamped to [0, 1].
//
// BG-PUCT of child j of p = mean over the nodes n of subtree(j) of
// [score(n) + κ·u·depth(n)/ansDepth] + c·(1−u)·prior(j)·sqrt(ln N(p)/N(j)),
// c = sqrt(exploration_weight), prior = softmax of the sibling scores, N =
// nodes in the subtree (the visit count of the code's backpropagation).
// The widening score of p = mean(children scores) + λ·(1−u)·Var(children
// scores). From the root: if the widening score is at least the best
// child's BG-PUCT, expand p, else descend into that child. A node with fewer
// than samples_per_action children is a leaf and is expanded (the code gives
// a leaf samples_per_action children at once; we expand them one at a time).
// Scores are pass rates (0 for a program that did not load); ansDepth, the
// mean depth of finished answers, is the maximum depth seen, since in repair
// the first finished (solved) program ends the search.
//
// Mapping: expanding p is expanding its pending edit with the lowest index;
// a node with no pending edit must descend, and children whose subtree has
// no pending edit are skipped. Hyperparameters (defaults of the code):
// exploration_weight 2, depth_weight κ 1, variance_weight λ 1,
// samples_per_action 2, budget 36 expansions (the largest budget reported).
type BGMCTS struct {
	ExplorationWeight, DepthWeight, VarianceWeight float64
	SamplesPerAction                               int
	Budget                                         int
}

// NewBGMCTS returns BG-MCTS with params {"exploration_weight",
// "depth_weight", "variance_weight", "samples_per_action", "budget"}.
func NewBGMCTS(params Params) (Policy, error) {
	if err := params.check("bgmcts", "exploration_weight", "depth_weight", "variance_weight", "samples_per_action", "budget"); err != nil {
		return nil, err
	}
	p := BGMCTS{
		ExplorationWeight: params.get("exploration_weight", 2),
		DepthWeight:       params.get("depth_weight", 1),
		VarianceWeight:    params.get("variance_weight", 1),
		SamplesPerAction:  int(params.get("samples_per_action", 2)),
		Budget:            int(params.get("budget", 36)),
	}
	if p.ExplorationWeight < 0 || p.DepthWeight < 0 || p.VarianceWeight < 0 {
		return nil, fmt.Errorf("policy bgmcts: weights must be >= 0, got %+v", p)
	}
	if p.SamplesPerAction < 1 || p.Budget < 1 {
		return nil, fmt.Errorf("policy bgmcts: samples_per_action and budget must be >= 1, got %+v", p)
	}
	return p, nil
}

// Name implements Policy.
func (p BGMCTS) Name() string { return "bgmcts" }

// WithBudget returns p with its budget set to b (the search budget of the
// run it is evaluated at).
func (p BGMCTS) WithBudget(b int) Policy {
	if b >= 1 {
		p.Budget = b
	}
	return p
}

// Start implements Policy.
func (p BGMCTS) Start(t *corpus.Tree, seed uint64) Episode {
	ep := &bgEpisode{treeBase: treeBase{base: newBase(t, seed)}, p: p, c: math.Sqrt(p.ExplorationWeight)}
	ep.growNodes()
	ep.addNode(0)
	return ep
}

type bgEpisode struct {
	treeBase
	p        BGMCTS
	c        float64
	cnt      []float64 // by NodeID: nodes in the subtree
	sumScore []float64 // by NodeID: Σ score over the subtree
	sumDepth []float64 // by NodeID: Σ depth over the subtree
	maxDepth int
}

func (ep *bgEpisode) growNodes() {
	ep.treeBase.growNodes()
	for len(ep.cnt) < len(ep.t.Nodes) {
		ep.cnt = append(ep.cnt, 0)
		ep.sumScore = append(ep.sumScore, 0)
		ep.sumDepth = append(ep.sumDepth, 0)
	}
}

func bgScore(n *corpus.Node) float64 {
	if !loads(n) {
		return 0
	}
	return n.Exec.PassRate
}

// addNode adds node x to the subtree statistics of x and its ancestors.
func (ep *bgEpisode) addNode(x corpus.NodeID) {
	n := &ep.t.Nodes[x]
	s, d := bgScore(n), float64(n.Depth)
	ep.maxDepth = max(ep.maxDepth, n.Depth)
	for u := x; u != corpus.NoNode; u = ep.t.Nodes[u].Parent {
		ep.cnt[u]++
		ep.sumScore[u] += s
		ep.sumDepth[u] += d
	}
}

func (ep *bgEpisode) Ask(_ context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	ep.growNodes()
	return ep.askTree(frontier, n, ep.pick)
}

func (ep *bgEpisode) pick() corpus.EdgeID {
	u := math.Min(1, float64(ep.steps)/float64(ep.p.Budget))
	ansDepth := math.Max(1, float64(ep.maxDepth))
	v := corpus.NodeID(0)
	for {
		e, canGen := ep.fi.pending(ep.t, v)
		kids := ep.kids[v]
		if canGen && len(kids) < ep.p.SamplesPerAction {
			return e
		}
		// Softmax prior over all children's scores, and their mean/variance.
		var z, mean float64
		for _, c := range kids {
			s := bgScore(&ep.t.Nodes[c])
			z += math.Exp(s)
			mean += s
		}
		mean /= float64(len(kids))
		var variance float64
		for _, c := range kids {
			d := bgScore(&ep.t.Nodes[c]) - mean
			variance += d * d
		}
		variance /= float64(len(kids))
		lnN := math.Log(math.Max(ep.cnt[v], 1))
		best, bestVal := corpus.NoNode, math.Inf(-1)
		for _, c := range kids {
			if ep.fi.openCount(c) == 0 {
				continue
			}
			prior := math.Exp(bgScore(&ep.t.Nodes[c])) / z
			val := (ep.sumScore[c]+ep.p.DepthWeight*u*ep.sumDepth[c]/ansDepth)/ep.cnt[c] +
				ep.c*(1-u)*prior*math.Sqrt(lnN/ep.cnt[c])
			if val > bestVal {
				best, bestVal = c, val
			}
		}
		if canGen && (best == corpus.NoNode || mean+ep.p.VarianceWeight*(1-u)*variance >= bestVal) {
			return e
		}
		if best == corpus.NoNode {
			return ep.fallbackPending(v)
		}
		v = best
	}
}

func (ep *bgEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	ep.growNodes()
	fresh, _, err := ep.tellTree(e, child)
	if err != nil || !fresh {
		return err
	}
	ep.addNode(child.ID)
	return nil
}
