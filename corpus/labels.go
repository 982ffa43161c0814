package corpus

// ComputeLabels fills the Label of every edge of a complete tree.
//
// For edge e = (v, u): B = D − depth(u) + 1. If u is solved, T = 1;
// otherwise T = 1 + min T over u's edges whose subtree holds a fix. When no
// node of u's subtree is solved (or u was never expanded) the edge is
// Censored, and T is 0: all that is known is that the true solve distance
// exceeds B. Nodes are in breadth-first order (children after parents), so
// one pass from the last node to the first sees every child before its
// parent.
func ComputeLabels(t *Tree) {
	// dist[u] = fewest expansions from u to a solved node in u's subtree; -1 = none.
	dist := make([]int32, len(t.Nodes))
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		n := &t.Nodes[i]
		if n.Solved() {
			dist[i] = 0
			continue
		}
		best := int32(-1)
		for _, eid := range n.Edges {
			c := t.Edges[eid].Child
			if c == NoNode || int(c) <= i || int(c) >= len(t.Nodes) || dist[c] < 0 {
				continue
			}
			if d := dist[c] + 1; best < 0 || d < best {
				best = d
			}
		}
		dist[i] = best
	}
	for i := range t.Edges {
		e := &t.Edges[i]
		var depth int
		if e.Child != NoNode && int(e.Child) < len(t.Nodes) {
			depth = t.Nodes[e.Child].Depth
		} else if int(e.Parent) >= 0 && int(e.Parent) < len(t.Nodes) {
			depth = t.Nodes[e.Parent].Depth + 1
		}
		e.Label = Label{B: int32(t.D - depth + 1)}
		if e.Child == NoNode || int(e.Child) >= len(t.Nodes) || dist[e.Child] < 0 {
			e.Label.Censored = true
			continue
		}
		e.Label.T = 1 + dist[e.Child]
	}
}

// splitOf returns the task's split, or SplitFor(task.ID) when it names none.
// SplitOf is the split of task: its own, or SplitFor its id.
func SplitOf(task *Task) string {
	if task.Split != "" {
		return task.Split
	}
	return SplitFor(task.ID)
}
