package search

import (
	"context"
	"fmt"

	"triage/corpus"
)

// Replay serves expansions from a recorded tree: expanding an edge reveals
// the child the corpus holds. Only edges with a recorded child are
// expandable. A Replay is stateless and safe for concurrent searches.
type Replay struct {
	t *corpus.Tree
}

// NewReplay returns a replay environment over t, which must have a root.
func NewReplay(t *corpus.Tree) (*Replay, error) {
	if t == nil || len(t.Nodes) == 0 {
		return nil, fmt.Errorf("replay: tree has no root")
	}
	return &Replay{t: t}, nil
}

// Tree implements Env.
func (r *Replay) Tree() *corpus.Tree { return r.t }

// Expandable implements Env.
func (r *Replay) Expandable(e corpus.EdgeID) bool {
	if e < 0 || int(e) >= len(r.t.Edges) {
		return false
	}
	c := r.t.Edges[e].Child
	return c != corpus.NoNode && int(c) < len(r.t.Nodes)
}

// Expand implements Env.
func (r *Replay) Expand(_ context.Context, e corpus.EdgeID) (corpus.NodeID, error) {
	if !r.Expandable(e) {
		return corpus.NoNode, fmt.Errorf("replay %s: edge %d has no recorded child", r.t.ID, e)
	}
	return r.t.Edges[e].Child, nil
}
