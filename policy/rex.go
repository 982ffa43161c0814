package policy

import (
	"context"
	"fmt"

	"triage/corpus"
)

// REx is REx's Thompson-sampling scheduler (Tang et al., NeurIPS 2024;
// haotang1995/REx acr/scheduler/rex.py, docs/baselines.md "rex").
//
// Arms are programs: every node with a pending edge. An arm with heuristic
// h (its pass rate; 0 for a program that did not load) that has been refined
// N times has the posterior Beta(1 + C·h, 1 + C·(1−h) + N), the smoothing-1
// form of the official code, where every unsuccessful refinement adds 1 to
// beta. Each Ask draws one sample per arm and refines the argmax: it expands
// that program's pending edit with the lowest index (the proposer's order),
// and N counts the program's expanded edits. A program whose edits are all
// expanded retires as an arm.
//
// Mapping: REx's extra arm "generate a new initial program" has no replay
// counterpart (a tree has one root); it is omitted. C defaults to 20, the
// value of the README's runs for every domain; tune it on the validation
// split (grid C=1,5,10,20, as in the paper's sweep of C).
type REx struct {
	C float64
}

// NewREx returns REx with params {"C": constant} (default 20, must be > 0).
func NewREx(params Params) (Policy, error) {
	if err := params.check("rex", "C"); err != nil {
		return nil, err
	}
	c := params.get("C", 20)
	if c <= 0 {
		return nil, fmt.Errorf("policy rex: C = %v, want > 0", c)
	}
	return REx{C: c}, nil
}

// Name implements Policy.
func (p REx) Name() string { return "rex" }

// Start implements Policy.
func (p REx) Start(t *corpus.Tree, seed uint64) Episode {
	return &rexEpisode{base: newBase(t, seed), c: p.C, kr: newKeyedRand()}
}

type rexEpisode struct {
	base
	c      float64
	refine []int32 // by NodeID: expanded edits of the program
	fi     frontierIndex
	kr     keyedRand
	buf    []corpus.EdgeID
}

func (ep *rexEpisode) growNodes() {
	for len(ep.refine) < len(ep.t.Nodes) {
		ep.refine = append(ep.refine, 0)
	}
}

func (ep *rexEpisode) Ask(_ context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	fr, err := ep.beginAsk(frontier, n, ep.buf)
	ep.buf = fr
	if err != nil || len(fr) == 0 {
		return nil, err
	}
	ep.growNodes()
	var out []corpus.EdgeID
	excluded := func(e corpus.EdgeID) bool { return ep.picked[e] == ep.askGen }
	for len(out) < n && len(out) < len(fr) {
		ep.fi.build(ep.t, fr, excluded, false)
		salt := ep.rng.Uint64()
		best, bestDraw := corpus.NoNode, -1.0
		for _, v := range ep.fi.nodes {
			node := &ep.t.Nodes[v]
			h := node.Exec.PassRate
			if !loads(node) {
				h = 0
			}
			draw := betaSample(ep.kr.at(salt, int(v)), 1+ep.c*h, 1+ep.c*(1-h)+float64(ep.refine[v]))
			if draw > bestDraw || (draw == bestDraw && v < best) {
				best, bestDraw = v, draw
			}
		}
		e := ep.fi.first[best]
		ep.picked[e] = ep.askGen
		out = append(out, e)
	}
	return out, nil
}

func (ep *rexEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	fresh, err := ep.tell(e, child)
	if err != nil || !fresh {
		return err
	}
	ep.growNodes()
	ep.refine[ep.t.Edges[e].Parent]++
	return nil
}
