package policy

import (
	"fmt"
	"math/rand/v2"

	"triage/corpus"
)

// base is the state every episode shares: the tree, the told edges, the
// per-episode random source and a stamp array that marks edges chosen in
// the current Ask.
type base struct {
	t      *corpus.Tree
	rng    *rand.Rand
	told   []bool   // by EdgeID: expanded and told
	picked []uint32 // by EdgeID: == askGen when chosen in the current Ask
	seen   []uint32 // by EdgeID: == askGen when seen in the current frontier
	askGen uint32
	steps  int      // number of distinct tells
	paths  []uint64 // by EdgeID: siblingPath + 1, 0 until computed
}

func newBase(t *corpus.Tree, seed uint64) base {
	return base{t: t, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// growEdges extends the per-edge slices to the tree's current size.
func (b *base) growEdges() {
	n := len(b.t.Edges)
	for len(b.told) < n {
		b.told = append(b.told, false)
		b.picked = append(b.picked, 0)
		b.seen = append(b.seen, 0)
		b.paths = append(b.paths, 0)
	}
}

// beginAsk validates frontier, starts a new ask generation and returns the
// distinct frontier edges (in input order).
func (b *base) beginAsk(frontier []corpus.EdgeID, n int, buf []corpus.EdgeID) ([]corpus.EdgeID, error) {
	if n < 1 {
		return nil, fmt.Errorf("ask: n = %d, want >= 1", n)
	}
	b.growEdges()
	b.askGen++
	if b.askGen == 0 { // wrapped: clear the stamps
		clear(b.picked)
		clear(b.seen)
		b.askGen = 1
	}
	out := buf[:0]
	for _, e := range frontier {
		if e < 0 || int(e) >= len(b.t.Edges) {
			return nil, fmt.Errorf("ask: frontier edge %d out of range [0, %d)", e, len(b.t.Edges))
		}
		if b.told[e] {
			return nil, fmt.Errorf("ask: frontier edge %d was already expanded", e)
		}
		if b.seen[e] == b.askGen {
			continue
		}
		b.seen[e] = b.askGen
		out = append(out, e)
	}
	return out, nil
}

// tell validates a Tell and marks e as told. It returns false (and no
// error) for a repeated Tell.
func (b *base) tell(e corpus.EdgeID, child *corpus.Node) (bool, error) {
	b.growEdges()
	if e < 0 || int(e) >= len(b.t.Edges) {
		return false, fmt.Errorf("tell: edge %d out of range [0, %d)", e, len(b.t.Edges))
	}
	if child == nil {
		return false, fmt.Errorf("tell: edge %d: nil child", e)
	}
	edge := &b.t.Edges[e]
	if child.ID < 0 || int(child.ID) >= len(b.t.Nodes) || child.Parent != edge.Parent || child.ViaEdge != e {
		return false, fmt.Errorf("tell: node %d (parent %d, via edge %d) is not the child of edge %d (parent %d)",
			child.ID, child.Parent, child.ViaEdge, e, edge.Parent)
	}
	if _, err := passRate(child); err != nil {
		return false, fmt.Errorf("tell: edge %d: %w", e, err)
	}
	if b.told[e] {
		return false, nil
	}
	b.told[e] = true
	b.steps++
	return true, nil
}

// parentDepth is the depth of e's parent node.
func (b *base) parentDepth(e corpus.EdgeID) int {
	return b.t.Nodes[b.t.Edges[e].Parent].Depth
}

// siblingPath is e's place in the tree, whatever the edges' numbering: the
// position of each edge on the path from the root down to e among its
// parent's edits (Edge.Index), the root's edit in the top byte, 8 bits a
// level (the first 8 levels count; a position over 254 counts as 254 and
// the EdgeID decides).
// Between edges whose parents share a depth its order is the order of a
// breadth-first numbering, the order of a recorded tree's edges, and it is
// the same in a live search or a session, which number edges as they are
// expanded.
func (b *base) siblingPath(e corpus.EdgeID) uint64 {
	b.growEdges()
	if p := b.paths[e]; p != 0 {
		return p - 1
	}
	var idx [8]uint64
	n := 0
	// At most one step a node: a malformed tree whose edges loop ends here.
	for cur, steps := e, 0; cur >= 0 && int(cur) < len(b.t.Edges) && steps <= len(b.t.Nodes); steps++ {
		edge := &b.t.Edges[cur]
		par := edge.Parent
		if par < 0 || int(par) >= len(b.t.Nodes) {
			break
		}
		copy(idx[1:], idx[:7]) // root-first: shift the deeper levels down
		idx[0] = uint64(min(max(edge.Index, 0), 254))
		n++
		cur = b.t.Nodes[par].ViaEdge
	}
	var key uint64
	for i := range min(n, 8) {
		key |= idx[i] << (56 - 8*i)
	}
	b.paths[e] = key + 1
	return key
}

// maxDepth is the tree's D (4 when unset).
func maxDepth(t *corpus.Tree) int {
	if t.D > 0 {
		return t.D
	}
	return 4
}
