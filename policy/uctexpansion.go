package policy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"triage/corpus"
)

// UCTExpansion is UCT as TSAPR runs it live (search/tsapr), where an
// expansion generates a batch of children of one node at once: its
// selection and its backpropagation are UCT's, run once per expansion
// instead of once per child, as APRMCTS's mcts.py does.
//
// An Ask with no expansion under way selects a node: from the root it
// descends by UCT (bestChild) while the node has no pending edge, and it
// returns up to n of that node's pending edges, lowest index first. Later
// Asks continue the same expansion with the node's remaining pending edges
// (the caller asks again for a child it dropped) until EndExpansion, or
// until the node has none left, which ends the expansion. Tell records a
// child with V = Reward(child) and N = 0 and backs nothing up;
// EndExpansion backs the expansion up from its node to the root (N += 1
// and UCT's value update), so N counts expansions, not children.
//
// Reward is a node's reward (nil: UCT's, the pass rate or −1); the root's
// V starts at Reward(root). Stream, when not 0, is the stream of the
// episode's random generator, so that a caller keeps the tie-breaks its
// seeds made before it ran on this episode (search/tsapr keeps 0x75a9).
type UCTExpansion struct {
	UCT
	Reward func(n *corpus.Node) float64
	Stream uint64
}

// Expansions is the episode of UCTExpansion: a policy.Episode whose
// expansions the caller ends, and whose values it can read.
type Expansions interface {
	Episode
	// EndExpansion backs up the expansion under way (a no-op when none
	// is): N += 1 and the value update from its node to the root.
	EndExpansion()
	// Value returns node v's value V and visits N (0, 0 for a node the
	// episode has not been told of).
	Value(v corpus.NodeID) (q float64, n int)
}

// Start implements Policy; the episode implements Expansions.
func (p UCTExpansion) Start(t *corpus.Tree, seed uint64) Episode { return p.StartExpansions(t, seed) }

// StartExpansions is Start with the episode's own type.
func (p UCTExpansion) StartExpansions(t *corpus.Tree, seed uint64) Expansions {
	b := newBase(t, seed)
	if p.Stream != 0 {
		b.rng = rand.New(rand.NewPCG(seed, p.Stream))
	}
	reward := p.Reward
	if reward == nil {
		reward = uctReward
	}
	return &uctExpansionEpisode{uctEpisode: p.start(b, reward), at: corpus.NoNode}
}

type uctExpansionEpisode struct {
	*uctEpisode
	at  corpus.NodeID // the node of the expansion under way, or NoNode
	own []corpus.EdgeID
}

func (ep *uctExpansionEpisode) Ask(_ context.Context, frontier []corpus.EdgeID, n int) ([]corpus.EdgeID, error) {
	fr, err := ep.beginAsk(frontier, n, ep.buf)
	ep.buf = fr
	if err != nil || len(fr) == 0 {
		return nil, err
	}
	ep.growNodes()
	ep.fi.build(ep.t, fr, nil, true)
	if ep.at != corpus.NoNode && !ep.hasPending(ep.at) {
		ep.EndExpansion()
	}
	if ep.at == corpus.NoNode {
		v := corpus.NodeID(0)
		for !ep.hasPending(v) {
			c := ep.bestChild(v)
			if c == corpus.NoNode {
				return nil, fmt.Errorf("ask: no pending edge below node %d of a frontier of %d", v, len(fr))
			}
			v = c
		}
		ep.at = v
	}
	ep.own = ep.own[:0]
	for _, e := range fr {
		if ep.t.Edges[e].Parent == ep.at {
			ep.own = append(ep.own, e)
		}
	}
	slices.SortFunc(ep.own, func(a, b corpus.EdgeID) int {
		if ia, ib := ep.t.Edges[a].Index, ep.t.Edges[b].Index; ia != ib {
			return ia - ib
		}
		return int(a - b)
	})
	return slices.Clone(ep.own[:min(n, len(ep.own))]), nil
}

// hasPending reports whether v has an edge in the indexed frontier.
func (ep *uctExpansionEpisode) hasPending(v corpus.NodeID) bool {
	_, ok := ep.fi.pending(ep.t, v)
	return ok
}

// Tell records the child; the backup waits for EndExpansion.
func (ep *uctExpansionEpisode) Tell(e corpus.EdgeID, child *corpus.Node) error {
	_, _, err := ep.record(e, child)
	return err
}

func (ep *uctExpansionEpisode) EndExpansion() {
	if ep.at == corpus.NoNode {
		return
	}
	ep.growNodes()
	ep.backup(ep.at)
	ep.at = corpus.NoNode
}

func (ep *uctExpansionEpisode) Value(v corpus.NodeID) (float64, int) {
	if v < 0 || int(v) >= len(ep.v) {
		return 0, 0
	}
	return ep.v[v], int(ep.n[v])
}
