// Package policytest holds the conformance test that every policy of
// package policy passes, and small hand-built trees for policy tests.
//
// Imports: corpus and policy only.
package policytest

import (
	"fmt"
	"math"

	"triage/corpus"
)

// Spec gives the pass rate of the program at path (the edit indexes from
// the root; empty for the root). A pass rate of 1 makes the node a fix,
// which is a leaf.
type Spec func(path []int) float64

// Exhaustive builds a complete tree with k edits per program and maximum
// depth d: every edit of every unsolved node above depth d is expanded;
// nodes at depth d and fixes have no edits. Nodes and edges are numbered in
// breadth-first order, as a corpus builder numbers them. Each node's
// revision costs 10 output tokens and its proposal 20.
func Exhaustive(id string, k, d int, spec Spec) *corpus.Tree {
	t := &corpus.Tree{ID: id, TaskID: "task-" + id, Split: corpus.SplitTest, K: k, D: d}
	type item struct {
		id   corpus.NodeID
		path []int
	}
	t.Nodes = append(t.Nodes, node(0, corpus.NoNode, -1, 0, spec(nil)))
	queue := []item{{0, nil}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		n := &t.Nodes[it.id]
		if n.Solved() || n.Depth >= d {
			continue
		}
		for i := 0; i < k; i++ {
			e := corpus.EdgeID(len(t.Edges))
			path := append(append([]int(nil), it.path...), i)
			c := corpus.NodeID(len(t.Nodes))
			t.Edges = append(t.Edges, corpus.Edge{ID: e, Parent: it.id, Index: i,
				Edit: corpus.ProposedEdit{Text: fmt.Sprintf("edit %v", path)}, Child: c})
			t.Nodes[it.id].Edges = append(t.Nodes[it.id].Edges, e)
			t.Nodes = append(t.Nodes, node(c, it.id, e, len(path), spec(path)))
			queue = append(queue, item{c, path})
		}
	}
	return t
}

func node(id, parent corpus.NodeID, via corpus.EdgeID, depth int, pass float64) corpus.Node {
	const tests = 10
	passed := int(math.Round(pass * tests))
	ex := corpus.Execution{Status: corpus.StatusOK, PassRate: pass, FailedFrac: 1 - pass}
	for i := 0; i < tests; i++ {
		ex.Tests = append(ex.Tests, corpus.TestResult{Name: fmt.Sprintf("test_%d", i), Passed: i < passed})
	}
	prog := fmt.Sprintf("def f():\n    return %d\n", id)
	n := corpus.Node{ID: id, Parent: parent, ViaEdge: via, Depth: depth, Program: prog,
		ProgramSHA: corpus.SHA256(prog), Exec: ex, Diagnosis: fmt.Sprintf("diagnosis of node %d", id),
		ProposeTokens: 20}
	if parent != corpus.NoNode {
		n.ReviseTokens = 10
	}
	return n
}

// FixAt returns a Spec whose only fix is the node at path; every other
// program passes base of the tests.
func FixAt(base float64, fix ...int) Spec {
	return func(path []int) float64 {
		if len(path) != len(fix) {
			return base
		}
		for i := range path {
			if path[i] != fix[i] {
				return base
			}
		}
		return 1
	}
}

// Wide builds a tree of k-edit programs in which exactly frontier edges are
// pending: programs are expanded in breadth-first order until the pending
// edges reach that count. It returns the tree, its expanded edges in order
// and the pending ones. Pass rates vary per node (a hash of its id) and no
// node is solved. Used to benchmark one decision at a frontier size.
func Wide(k, frontier int) (*corpus.Tree, []corpus.EdgeID, []corpus.EdgeID) {
	t := &corpus.Tree{ID: "wide", TaskID: "wide", K: k, D: 64}
	pass := func(id corpus.NodeID) float64 { return float64((uint32(id)*2654435761)>>24%90) / 100 }
	t.Nodes = append(t.Nodes, node(0, corpus.NoNode, -1, 0, pass(0)))
	addEdges := func(v corpus.NodeID) {
		for i := 0; i < k; i++ {
			e := corpus.EdgeID(len(t.Edges))
			t.Edges = append(t.Edges, corpus.Edge{ID: e, Parent: v, Index: i, Child: corpus.NoNode,
				Edit: corpus.ProposedEdit{Text: fmt.Sprintf("edit %d of %d", i, v)}})
			t.Nodes[v].Edges = append(t.Nodes[v].Edges, e)
		}
	}
	addEdges(0)
	var expanded []corpus.EdgeID
	next := corpus.EdgeID(0)
	for len(t.Edges)-len(expanded) < frontier {
		e := next
		next++
		par := t.Edges[e].Parent
		c := corpus.NodeID(len(t.Nodes))
		t.Nodes = append(t.Nodes, node(c, par, e, t.Nodes[par].Depth+1, pass(c)))
		t.Edges[e].Child = c
		expanded = append(expanded, e)
		addEdges(c)
	}
	var pending []corpus.EdgeID
	for e := next; int(e) < len(t.Edges); e++ {
		pending = append(pending, e)
	}
	return t, expanded, pending[:frontier]
}
