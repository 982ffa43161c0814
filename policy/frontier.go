package policy

import (
	"triage/corpus"
)

// frontierIndex summarizes a frontier per node for the policies whose arms
// are programs (rex) or that descend the tree (uct, abmcts, bgmcts): for
// each node, its first pending edge (lowest index among its edits) and the
// whether its subtree holds a pending edge. Entries are valid only where
// stamp == gen, so rebuilding costs O(frontier · depth), not O(tree).
type frontierIndex struct {
	stamp []uint32
	gen   uint32
	first []corpus.EdgeID // by NodeID: pending edge with the lowest Index
	open  []int32         // by NodeID: > 0 iff a pending edge is in the subtree
	nodes []corpus.NodeID // distinct parents of pending edges
}

func (fi *frontierIndex) grow(n int) {
	for len(fi.stamp) < n {
		fi.stamp = append(fi.stamp, 0)
		fi.first = append(fi.first, 0)
		fi.open = append(fi.open, 0)
	}
}

func (fi *frontierIndex) valid(v corpus.NodeID) bool { return fi.stamp[v] == fi.gen }

// pending returns v's first pending edge, or false when it has none.
func (fi *frontierIndex) pending(t *corpus.Tree, v corpus.NodeID) (corpus.EdgeID, bool) {
	if !fi.valid(v) || fi.first[v] < 0 {
		return 0, false
	}
	return fi.first[v], true
}

// openCount is > 0 iff v's subtree holds a pending edge (a lower bound on
// their number).
func (fi *frontierIndex) openCount(v corpus.NodeID) int32 {
	if !fi.valid(v) {
		return 0
	}
	return fi.open[v]
}

func (fi *frontierIndex) touch(v corpus.NodeID) {
	if fi.stamp[v] != fi.gen {
		fi.stamp[v] = fi.gen
		fi.first[v] = -1
		fi.open[v] = 0
	}
}

// build indexes the edges of frontier not excluded. With subtree set it also
// marks every ancestor of a pending edge as open.
func (fi *frontierIndex) build(t *corpus.Tree, frontier []corpus.EdgeID, excluded func(corpus.EdgeID) bool, subtree bool) {
	fi.grow(len(t.Nodes))
	fi.gen++
	if fi.gen == 0 {
		clear(fi.stamp)
		fi.gen = 1
	}
	fi.nodes = fi.nodes[:0]
	for _, e := range frontier {
		if excluded != nil && excluded(e) {
			continue
		}
		edge := &t.Edges[e]
		v := edge.Parent
		if !fi.valid(v) {
			fi.touch(v)
		}
		if fi.first[v] < 0 {
			fi.nodes = append(fi.nodes, v)
			fi.first[v] = e
		} else if f := &t.Edges[fi.first[v]]; edge.Index < f.Index || (edge.Index == f.Index && e < fi.first[v]) {
			fi.first[v] = e
		}
		if subtree {
			// Mark v and its ancestors open; stop at the first ancestor
			// already marked (its own ancestors are), so the whole build
			// is O(frontier + marked nodes).
			for u := v; u != corpus.NoNode; u = t.Nodes[u].Parent {
				fi.touch(u)
				fi.open[u]++
				if fi.open[u] > 1 {
					break
				}
			}
		}
	}
}
