package search

import (
	"context"
	"fmt"
	"time"

	"triage/corpus"
)

// LiveOptions configure a live search.
type LiveOptions struct {
	// TreeID names the tree in the proposer's keys; the default is
	// corpus.TreeID(task, RootIndex, root), the id of the corpus tree of
	// the same root, so a seeded proposer proposes what it proposed there.
	TreeID string
	// RootIndex is the root's position among its task's roots.
	RootIndex int
	K         int // edits per program (default 3)
	D         int // maximum depth (default 4)
	// Proposer and Model name what proposed the edits, for the record.
	Proposer, Model string
	// Timeout is the wall-clock limit of every run (zero: the executor's
	// own) and CPULimit, when > 0, its CPU-time limit; the corpus build's
	// limits of the task reproduce its verdicts.
	Timeout  time.Duration
	CPULimit time.Duration
	// ProgramCPULimit is the program's own budget within CPULimit
	// (corpus.RunOptions.ProgramCPU; zero: none).
	ProgramCPULimit time.Duration
}

// Live grows a tree as the search expands it, with the expansion step of
// the corpus builder (corpus.Expander): each expansion revises the parent
// program with the chosen edit, runs the tests, and (when the child is
// unsolved and above the depth limit) asks for the child's diagnosis and k
// edits. Edges are numbered in the order their parents were expanded. A
// Live serves one search at a time.
type Live struct {
	x     *corpus.Expander
	t     *corpus.Tree
	paths []string // by NodeID: the node's path (corpus.RootPath, corpus.ChildPath)
}

// NewLive runs and proposes on root, the first program of the tree.
func NewLive(ctx context.Context, task *corpus.Task, root string, prop corpus.Proposer, exec corpus.Executor, opts LiveOptions) (*Live, error) {
	if task == nil || prop == nil || exec == nil {
		return nil, fmt.Errorf("live: task, proposer and executor are required")
	}
	if opts.K <= 0 {
		opts.K = 3
	}
	if opts.D <= 0 {
		opts.D = 4
	}
	if opts.TreeID == "" {
		opts.TreeID = corpus.TreeID(task.ID, opts.RootIndex, root)
	}
	x := &corpus.Expander{Task: task, Proposer: prop, Executor: exec, TreeID: opts.TreeID,
		K: opts.K, D: opts.D, Timeout: opts.Timeout, CPULimit: opts.CPULimit, ProgramCPULimit: opts.ProgramCPULimit}
	l := &Live{x: x, t: x.Header(opts.Proposer, opts.Model)}
	n, err := x.Root(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	if err := l.add(ctx, n, corpus.RootPath); err != nil {
		return nil, err
	}
	return l, nil
}

// add appends node n (its id, parent and edge set) at path, and its
// proposed edits when it is expandable.
func (l *Live) add(ctx context.Context, n corpus.Node, path string) error {
	edits, err := l.x.Propose(ctx, &n, path)
	if err != nil {
		return fmt.Errorf("live: %w", err)
	}
	for i, ed := range edits {
		e := corpus.EdgeID(len(l.t.Edges))
		l.t.Edges = append(l.t.Edges, corpus.Edge{ID: e, Parent: n.ID, Index: i, Edit: ed, Child: corpus.NoNode})
		n.Edges = append(n.Edges, e)
	}
	l.t.Nodes = append(l.t.Nodes, n)
	l.paths = append(l.paths, path)
	return nil
}

// Tree implements Env.
func (l *Live) Tree() *corpus.Tree { return l.t }

// Expandable implements Env: every unexpanded edge of a live tree is.
func (l *Live) Expandable(e corpus.EdgeID) bool {
	return e >= 0 && int(e) < len(l.t.Edges) && l.t.Edges[e].Child == corpus.NoNode
}

// Expand implements Env.
func (l *Live) Expand(ctx context.Context, e corpus.EdgeID) (corpus.NodeID, error) {
	if !l.Expandable(e) {
		return corpus.NoNode, fmt.Errorf("live %s: edge %d is not expandable", l.t.ID, e)
	}
	edge := l.t.Edges[e]
	path := l.paths[edge.Parent]
	c, err := l.x.Child(ctx, &l.t.Nodes[edge.Parent], path, edge.Index, edge.Edit)
	if err != nil {
		return corpus.NoNode, fmt.Errorf("live: %w", err)
	}
	c.ID, c.ViaEdge = corpus.NodeID(len(l.t.Nodes)), e
	if err := l.add(ctx, c, corpus.ChildPath(path, edge.Index)); err != nil {
		return corpus.NoNode, err
	}
	l.t.Edges[e].Child = c.ID
	return c.ID, nil
}
