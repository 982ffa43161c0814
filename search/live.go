package search

import (
	"context"
	"fmt"
	"strconv"

	"triage/corpus"
)

// LiveOptions configure a live search.
type LiveOptions struct {
	TreeID string
	K      int // edits per program (default 3)
	D      int // maximum depth (default 4)
	// Proposer and Model name what proposed the edits, for the record.
	Proposer, Model string
}

// Live grows a tree as the search expands it: each expansion asks the
// proposer to revise the parent program with the chosen edit, runs the
// tests, and (when the child is unsolved and above the depth limit) asks
// for the child's diagnosis and k edits. A Live serves one search at a
// time.
type Live struct {
	task *corpus.Task
	prop corpus.Proposer
	exec corpus.Executor
	opts LiveOptions
	t    *corpus.Tree
	keys []string // by NodeID: the node's path key
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
		opts.TreeID = task.ID + "/live"
	}
	l := &Live{task: task, prop: prop, exec: exec, opts: opts, t: &corpus.Tree{
		ID: opts.TreeID, TaskID: task.ID, Split: task.Split, K: opts.K, D: opts.D,
		Proposer: opts.Proposer, Model: opts.Model,
	}}
	ex, err := exec.Run(ctx, root, task.Test)
	if err != nil {
		return nil, fmt.Errorf("live %s: run root: %w", opts.TreeID, err)
	}
	l.t.Nodes = append(l.t.Nodes, corpus.Node{
		ID: 0, Parent: corpus.NoNode, ViaEdge: -1, Program: root, ProgramSHA: corpus.SHA256(root), Exec: ex,
	})
	l.keys = append(l.keys, opts.TreeID+"/r")
	if err := l.propose(ctx, 0); err != nil {
		return nil, err
	}
	return l, nil
}

// propose fills node id's diagnosis and edits when it is unsolved and
// above the depth limit.
func (l *Live) propose(ctx context.Context, id corpus.NodeID) error {
	n := &l.t.Nodes[id]
	if n.Solved() || n.Depth >= l.opts.D || n.ReviseFailed {
		return nil
	}
	p, err := l.prop.Propose(ctx, corpus.ProposeRequest{Task: l.task, Program: n.Program, Exec: n.Exec, K: l.opts.K, Key: l.keys[id]})
	if err != nil {
		return fmt.Errorf("live %s: propose node %d: %w", l.t.ID, id, err)
	}
	n = &l.t.Nodes[id]
	n.Diagnosis, n.ProposeTokens = p.Diagnosis, p.OutputTokens
	n.TokensEstimated = n.TokensEstimated || p.TokensEstimated
	if p.Failed {
		n.ProposeFailed, n.Raw = true, p.Raw
	}
	for i, ed := range p.Edits {
		if i >= l.opts.K {
			break
		}
		e := corpus.EdgeID(len(l.t.Edges))
		l.t.Edges = append(l.t.Edges, corpus.Edge{ID: e, Parent: id, Index: i, Edit: ed, Child: corpus.NoNode})
		n.Edges = append(n.Edges, e)
	}
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
	par := l.t.Nodes[edge.Parent]
	key := l.keys[edge.Parent] + "." + strconv.Itoa(edge.Index)
	rv, err := l.prop.Revise(ctx, corpus.ReviseRequest{Task: l.task, Program: par.Program, Exec: par.Exec, Diagnosis: par.Diagnosis, Edit: edge.Edit, Key: key})
	if err != nil {
		return corpus.NoNode, fmt.Errorf("live %s: revise edge %d: %w", l.t.ID, e, err)
	}
	id := corpus.NodeID(len(l.t.Nodes))
	n := corpus.Node{ID: id, Parent: edge.Parent, ViaEdge: e, Depth: par.Depth + 1,
		ReviseTokens: rv.OutputTokens, TokensEstimated: rv.TokensEstimated}
	if rv.Failed || rv.Program == "" {
		n.ReviseFailed, n.Raw = true, rv.Raw
		n.Exec = corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1, Feedback: "the revision held no program"}
	} else {
		n.Program, n.ProgramSHA = rv.Program, corpus.SHA256(rv.Program)
		if n.Exec, err = l.exec.Run(ctx, rv.Program, l.task.Test); err != nil {
			return corpus.NoNode, fmt.Errorf("live %s: run child of edge %d: %w", l.t.ID, e, err)
		}
	}
	l.t.Nodes = append(l.t.Nodes, n)
	l.keys = append(l.keys, key)
	l.t.Edges[e].Child = id
	if err := l.propose(ctx, id); err != nil {
		return corpus.NoNode, err
	}
	return id, nil
}
