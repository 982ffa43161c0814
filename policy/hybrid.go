package policy

import (
	"context"
	"errors"
	"fmt"
	"math"

	"triage/corpus"
	"triage/model/priority"
)

// Hybrid is PUCT with the learned model as its prior: the learned policy
// scores each edge once, and a search that trusts those scores alone cannot
// notice that the model is wrong about a task it has never seen. Hybrid
// treats s(e) as a prior and what the search has observed so far (the pass
// rates of the programs it expanded, as UCT backs them up) as evidence.
//
// Selection descends from the root. At node v every pending edit e of v and
// every told child c whose subtree still holds a pending edit is an action,
// scored
//
//	Q(a) + C · P(a) · sqrt(max(N_v, 1)) / (1 + N(a))
//
// where P(a) = s(e_a)^(1/temp), divided by the sum over v's scored edits
// when norm = 1 (the prior of a child is that of the edit that made it);
// N(c) counts the expansions in c's subtree, c included, and Q(c) is the
// mean reward over them; a pending edit has N = 0 and Q = the reward of v
// itself (first-play urgency: an untried edit keeps its program's pass
// rate). The reward of a program is
// its test pass rate, 0 for one that did not load. A pending edit is
// expanded; a child is entered. Ties go to the larger prior, then the
// smaller EdgeID, so the policy is deterministic.
//
// Hyperparameters (tunable on val by `triage tune`): C (default 1),
// temp (default 1) and norm (1: P normalised among siblings, default; 0: P
// is the raw s(e)^(1/temp), which keeps the model's view that a whole node
// is hopeless).
type Hybrid struct {
	scorer        Scorer
	C, Temp, Norm float64
}

// hybridKeys are the hyperparameters of Hybrid.
var hybridKeys = []string{"C", "temp", "norm"}

// NewHybrid returns the hybrid policy over scorer with params {"C",
// "temp", "norm"} (nil for the defaults).
func NewHybrid(scorer Scorer, params Params) (Policy, error) {
	if scorer == nil {
		return nil, errors.New("policy hybrid: nil scorer")
	}
	return newHybrid(scorer, params)
}

func newHybrid(scorer Scorer, params Params) (Hybrid, error) {
	if err := params.check("hybrid", hybridKeys...); err != nil {
		return Hybrid{}, err
	}
	p := Hybrid{scorer: scorer, C: params.get("C", 1), Temp: params.get("temp", 1), Norm: params.get("norm", 1)}
	if p.C < 0 {
		return Hybrid{}, fmt.Errorf("policy hybrid: C = %v, want >= 0", p.C)
	}
	if p.Temp <= 0 {
		return Hybrid{}, fmt.Errorf("policy hybrid: temp = %v, want > 0", p.Temp)
	}
	if p.Norm != 0 && p.Norm != 1 {
		return Hybrid{}, fmt.Errorf("policy hybrid: norm = %v, want 0 or 1", p.Norm)
	}
	return p, nil
}

// Name implements Policy.
func (p Hybrid) Name() string { return "hybrid" }

// Start implements Policy.
func (p Hybrid) Start(t *corpus.Tree, seed uint64) Episode {
	ep := &hybridEpisode{treeBase: treeBase{base: newBase(t, seed)}, edgeScores: edgeScores{scorer: p.scorer}, p: p}
	ep.growNodes()
	ep.r0 = hybridReward(t.Root())
	return ep
}

func hybridReward(n *corpus.Node) float64 {
	if !loads(n) {
		return 0
	}
	return n.Exec.PassRate
}

type hybridEpisode struct {
	treeBase
	edgeScores
	p    Hybrid
	r0   float64           // the root's reward
	w    []float64         // by NodeID: sum of rewards in the subtree, the node's own included
	n    []int32           // by NodeID: expansions in the subtree, the node itself included
	pend [][]corpus.EdgeID // by NodeID: pending edges of the current Ask
	used []corpus.NodeID   // nodes with a pending list this Ask
}

func (ep *hybridEpisode) growNodes() {
	ep.treeBase.growNodes()
	for len(ep.w) < len(ep.t.Nodes) {
		ep.w = append(ep.w, 0)
		ep.n = append(ep.n, 0)
		ep.pend = append(ep.pend, nil)
	}
}

// Ask implements Episode; ctx bounds the Scorer call for edges new to the frontier.
func (ep *hybridEpisode) Ask(ctx context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	ep.growNodes()
	prepare := func(fr []corpus.EdgeID) error {
		if err := ep.ensure(ctx, ep.t, fr, ep.prior); err != nil {
			return fmt.Errorf("hybrid: %w", err)
		}
		for _, v := range ep.used {
			ep.pend[v] = ep.pend[v][:0]
		}
		ep.used = ep.used[:0]
		for _, e := range fr {
			v := ep.t.Edges[e].Parent
			if len(ep.pend[v]) == 0 {
				ep.used = append(ep.used, v)
			}
			ep.pend[v] = append(ep.pend[v], e)
		}
		return nil
	}
	return ep.askTreePrepared(frontier, n, prepare, ep.pick)
}

// prior is the unnormalised prior s(e)^(1/temp), floored so that every
// edit keeps some chance.
func (ep *hybridEpisode) prior(_ corpus.EdgeID, _ priority.Dist, s float64) float64 {
	return math.Pow(max(s, 1e-6), 1/ep.p.Temp)
}

// priorOf is edge e's stored prior, 0 for an edge never scored.
func (ep *hybridEpisode) priorOf(e corpus.EdgeID) float64 {
	if int(e) < len(ep.has) && ep.has[e] {
		return ep.score[e]
	}
	return 0
}

// norm is the divisor of v's priors: the sum over its scored edits (1 with
// norm = 0).
func (ep *hybridEpisode) norm(v corpus.NodeID) float64 {
	if ep.p.Norm == 0 {
		return 1
	}
	var z float64
	for _, e := range ep.t.Nodes[v].Edges {
		z += ep.priorOf(e)
	}
	if z <= 0 {
		return 1
	}
	return z
}

func (ep *hybridEpisode) pick() corpus.EdgeID {
	v := corpus.NodeID(0)
	for {
		z := ep.norm(v)
		sq := math.Sqrt(float64(max(ep.n[v], 1)))
		// First-play urgency: an edit not tried yet is expected to keep
		// v's pass rate, so a subtree whose edits made things worse loses
		// to an untried sibling however confident the prior was.
		fpu := ep.r0
		if v != 0 {
			fpu = hybridReward(&ep.t.Nodes[v])
		}
		var (
			bestEdge  corpus.EdgeID = -1
			bestChild               = corpus.NoNode
			bestVal                 = math.Inf(-1)
			bestP                   = math.Inf(-1)
			bestID    corpus.EdgeID
		)
		better := func(val, p float64, id corpus.EdgeID) bool {
			switch {
			case val != bestVal:
				return val > bestVal
			case p != bestP:
				return p > bestP
			}
			return id < bestID
		}
		for _, e := range ep.pend[v] {
			if ep.picked[e] == ep.askGen {
				continue
			}
			p := ep.priorOf(e) / z
			if val := fpu + ep.p.C*p*sq; better(val, p, e) {
				bestEdge, bestChild, bestVal, bestP, bestID = e, corpus.NoNode, val, p, e
			}
		}
		for _, c := range ep.kids[v] {
			if ep.fi.openCount(c) == 0 {
				continue
			}
			via := ep.t.Nodes[c].ViaEdge
			p := ep.priorOf(via) / z
			nc := float64(ep.n[c])
			if val := ep.w[c]/nc + ep.p.C*p*sq/(1+nc); better(val, p, via) {
				bestEdge, bestChild, bestVal, bestP, bestID = -1, c, val, p, via
			}
		}
		switch {
		case bestEdge >= 0:
			return bestEdge
		case bestChild == corpus.NoNode:
			return ep.fallbackPending(v)
		}
		v = bestChild
	}
}

// Tell implements Episode.
func (ep *hybridEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	ep.growNodes()
	fresh, _, err := ep.tellTree(e, child)
	if err != nil || !fresh {
		return err
	}
	r := hybridReward(child)
	for u := child.ID; u != corpus.NoNode; u = ep.t.Nodes[u].Parent {
		ep.n[u]++
		ep.w[u] += r
	}
	return nil
}

// Scored lists the policies that need a Scorer (a trained checkpoint).
var Scored = []string{"learned", "hybrid"}

// NeedsScorer reports whether the policy called name needs a Scorer.
func NeedsScorer(name string) bool { return containsString(Scored, name) }

// NewScored returns the policy called name with hyperparameters params:
// learned (with opts) or hybrid over scorer, or a baseline (scorer unused).
func NewScored(name string, params Params, scorer Scorer, opts ...LearnedOption) (Policy, error) {
	switch name {
	case "learned":
		if err := params.check("learned"); err != nil {
			return nil, err
		}
		return NewLearned(scorer, opts...)
	case "hybrid":
		return NewHybrid(scorer, params)
	}
	return New(name, params)
}

// CheckParams reports whether params are valid hyperparameters of the
// policy called name, without building it (the scored policies need a
// checkpoint for that).
func CheckParams(name string, params Params) error {
	switch name {
	case "learned":
		return params.check("learned")
	case "hybrid":
		_, err := newHybrid(nil, params)
		return err
	}
	_, err := New(name, params)
	return err
}
