package report

import (
	"cmp"
	"fmt"
	"slices"

	"triage/corpus"
	"triage/search"
)

// ViewTest is one test outcome shown for a node.
type ViewTest struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"`
}

// ViewNode is one program of the viewed search.
type ViewNode struct {
	ID       int     `json:"id"`
	Parent   int     `json:"parent"`
	Depth    int     `json:"depth"`
	PassRate float64 `json:"pass_rate"`
	Status   string  `json:"status"`
	Solved   bool    `json:"solved"`
	// Step is the expansion that revealed the node (1-based; 0 = root).
	Step         int        `json:"step"`
	Edit         string     `json:"edit,omitempty"`
	Diagnosis    string     `json:"diagnosis"`
	Feedback     string     `json:"feedback"`
	Tests        []ViewTest `json:"tests"`
	Diff         string     `json:"diff"`
	ReviseFailed bool       `json:"revise_failed,omitempty"`
}

// ViewCandidate is one frontier edge at a step, in the policy's order.
type ViewCandidate struct {
	Edge     int      `json:"edge"`
	Parent   int      `json:"parent"`
	Edit     string   `json:"edit"`
	Priority *float64 `json:"priority,omitempty"`
	// Dist is the learned policy's predicted distribution of the edge's
	// solve distance: P(t = 1..D), then P(t > D).
	Dist   []float64 `json:"dist,omitempty"`
	Chosen bool      `json:"chosen"`
}

// ViewStep is one expansion: the frontier before it, ranked, and what was
// expanded.
type ViewStep struct {
	Edge     int             `json:"edge"`
	Child    int             `json:"child"`
	Frontier []ViewCandidate `json:"frontier"`
}

// Viewer is the data of the HTML tree viewer: one policy's search of one
// tree.
type Viewer struct {
	TreeID string     `json:"tree_id"`
	TaskID string     `json:"task_id"`
	Policy string     `json:"policy"`
	Ranked bool       `json:"ranked"`
	Solved bool       `json:"solved"`
	Nodes  []ViewNode `json:"nodes"`
	Steps  []ViewStep `json:"steps"`
}

// maxText bounds every text field of the viewer.
const maxText = 8000

func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	return s[:maxText] + fmt.Sprintf("\n… (%d more bytes)", len(s)-maxText)
}

// NewViewer builds the viewer of res, a traced search (search.Config.Trace)
// of t. Nodes are the root and every expanded child; the frontier of each
// step is ordered by the policy's priorities when res has them, otherwise
// with the chosen edge first and the rest by EdgeID.
func NewViewer(t *corpus.Tree, res search.Result) (*Viewer, error) {
	if len(res.Frontiers) != len(res.Order) {
		return nil, fmt.Errorf("viewer: result of tree %s has %d frontiers for %d expansions (run with Trace)", t.ID, len(res.Frontiers), len(res.Order))
	}
	v := &Viewer{TreeID: t.ID, TaskID: t.TaskID, Policy: res.Policy, Ranked: len(res.Priorities) == len(res.Order) && len(res.Order) > 0, Solved: res.Solved}
	viewIdx := map[corpus.NodeID]int{}
	add := func(id corpus.NodeID, step int) {
		n := t.Node(id)
		vn := ViewNode{ID: int(id), Parent: int(n.Parent), Depth: n.Depth, PassRate: n.Exec.PassRate,
			Status: string(n.Exec.Status), Solved: n.Solved(), Step: step,
			Diagnosis: clip(n.Diagnosis), Feedback: clip(n.Exec.Feedback), ReviseFailed: n.ReviseFailed}
		for _, tr := range n.Exec.Tests {
			vn.Tests = append(vn.Tests, ViewTest{Name: tr.Name, Passed: tr.Passed, Message: clip(tr.Message)})
		}
		if n.Parent != corpus.NoNode {
			vn.Edit = clip(t.Edge(n.ViaEdge).Edit.Text)
			vn.Diff = clip(UnifiedDiff(fmt.Sprintf("node %d", n.Parent), fmt.Sprintf("node %d", id), t.Node(n.Parent).Program, n.Program))
		} else {
			vn.Diff = clip(n.Program)
		}
		viewIdx[id] = len(v.Nodes)
		v.Nodes = append(v.Nodes, vn)
	}
	add(0, 0)
	for i, e := range res.Order {
		c := res.Children[i]
		add(c, i+1)
		fr := res.Frontiers[i]
		cands := make([]ViewCandidate, len(fr))
		type key struct {
			prio  float64
			depth int
			edge  corpus.EdgeID
		}
		keys := make([]key, len(fr))
		for j, fe := range fr {
			cands[j] = ViewCandidate{Edge: int(fe), Parent: int(t.Edge(fe).Parent), Edit: clip(t.Edge(fe).Edit.Text), Chosen: fe == e}
			keys[j] = key{depth: t.Node(t.Edge(fe).Parent).Depth, edge: fe}
			if v.Ranked {
				p := res.Priorities[i][j]
				cands[j].Priority = &p
				keys[j].prio = p
				if i < len(res.Dists) && j < len(res.Dists[i]) {
					cands[j].Dist = res.Dists[i][j]
				}
			} else if fe == e {
				keys[j].prio = 1
			}
		}
		idx := make([]int, len(fr))
		for j := range idx {
			idx[j] = j
		}
		slices.SortFunc(idx, func(a, b int) int {
			ka, kb := keys[a], keys[b]
			return cmp.Or(cmp.Compare(kb.prio, ka.prio), cmp.Compare(ka.depth, kb.depth), cmp.Compare(ka.edge, kb.edge))
		})
		sorted := make([]ViewCandidate, len(fr))
		for j, k := range idx {
			sorted[j] = cands[k]
		}
		v.Steps = append(v.Steps, ViewStep{Edge: int(e), Child: int(c), Frontier: sorted})
	}
	return v, nil
}
