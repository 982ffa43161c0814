package policy

import (
	"triage/corpus"
)

// treeBase is the shared state of the policies that descend the tree of
// expanded programs (uct, abmcts, bgmcts): the children each node has been
// told about, and a frontier index rebuilt at each selection.
type treeBase struct {
	base
	kids [][]corpus.NodeID // by NodeID: told children, in tell order
	fi   frontierIndex
	buf  []corpus.EdgeID
}

func (tb *treeBase) growNodes() {
	for len(tb.kids) < len(tb.t.Nodes) {
		tb.kids = append(tb.kids, nil)
	}
}

// askTree runs the shared Ask: validate, then select up to n edges by
// calling pick on a frontier index that excludes the edges already chosen.
func (tb *treeBase) askTree(frontier []corpus.EdgeID, n int, pick func() corpus.EdgeID) ([]corpus.EdgeID, error) {
	return tb.askTreePrepared(frontier, n, nil, pick)
}

// askTreePrepared is askTree with a prepare step that sees the validated,
// distinct frontier before the first pick (the hybrid policy scores it).
func (tb *treeBase) askTreePrepared(frontier []corpus.EdgeID, n int, prepare func([]corpus.EdgeID) error, pick func() corpus.EdgeID) ([]corpus.EdgeID, error) {
	fr, err := tb.beginAsk(frontier, n, tb.buf)
	tb.buf = fr
	if err != nil || len(fr) == 0 {
		return nil, err
	}
	if prepare != nil {
		if err := prepare(fr); err != nil {
			return nil, err
		}
	}
	tb.growNodes()
	excluded := func(e corpus.EdgeID) bool { return tb.picked[e] == tb.askGen }
	var out []corpus.EdgeID
	for len(out) < n && len(out) < len(fr) {
		tb.fi.build(tb.t, fr, excluded, true)
		e := pick()
		tb.picked[e] = tb.askGen
		out = append(out, e)
	}
	return out, nil
}

// fallbackPending returns some pending edge in v's subtree; selection rules
// use it only if they reach a node with nothing to choose (which the open
// counts rule out).
func (tb *treeBase) fallbackPending(v corpus.NodeID) corpus.EdgeID {
	for {
		if e, ok := tb.fi.pending(tb.t, v); ok {
			return e
		}
		next := corpus.NoNode
		for _, c := range tb.kids[v] {
			if tb.fi.openCount(c) > 0 {
				next = c
				break
			}
		}
		if next == corpus.NoNode {
			// Not reachable while open(root) > 0; pick the first indexed node.
			return tb.fi.first[tb.fi.nodes[0]]
		}
		v = next
	}
}

// tellTree records a fresh Tell's child and returns its parent.
func (tb *treeBase) tellTree(e corpus.EdgeID, child *corpus.Node) (bool, corpus.NodeID, error) {
	fresh, err := tb.tell(e, child)
	if err != nil || !fresh {
		return false, 0, err
	}
	tb.growNodes()
	p := tb.t.Edges[e].Parent
	tb.kids[p] = append(tb.kids[p], child.ID)
	return true, p, nil
}
