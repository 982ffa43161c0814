package corpus

import "strconv"

// NodeID indexes Tree.Nodes; the root is 0. NoNode marks an absent node.
type NodeID int32

// EdgeID indexes Tree.Edges. Edges are numbered densely in the order their
// parents were proposed, so per-edge policy state can live in slices.
type EdgeID int32

// NoNode marks an edge whose child has not been expanded, and the root's parent.
const NoNode NodeID = -1

// Label is the supervision of one edge, computed once its tree is complete.
// T is the solve distance (1 when the child itself passes); when no solved
// node is reachable in the child's subtree the edge is Censored and all that
// is known is T > B. B is the remaining depth D − depth(child) + 1.
type Label struct {
	T        int32 `json:"t"`
	B        int32 `json:"b"`
	Censored bool  `json:"censored"`
}

// Edge is one proposed edit e = (v, u) with its child once expanded.
type Edge struct {
	ID     EdgeID       `json:"edge_id"`
	Parent NodeID       `json:"parent"`
	Index  int          `json:"index"` // position among the parent's edits
	Edit   ProposedEdit `json:"edit"`
	Child  NodeID       `json:"child"`
	Label  Label        `json:"label"`
}

// Node is one program version of a tree with its test results, diagnosis and
// proposed edits.
type Node struct {
	ID         NodeID    `json:"node_id"`
	Parent     NodeID    `json:"parent_id"`
	ViaEdge    EdgeID    `json:"edge_id"` // the edge that produced it; -1 for the root
	Depth      int       `json:"depth"`
	Program    string    `json:"program"`
	ProgramSHA string    `json:"program_sha256"`
	Exec       Execution `json:"exec"`
	Diagnosis  string    `json:"diagnosis"`
	Edges      []EdgeID  `json:"edges"`
	// ProposeFailed marks a proposal whose output could not be parsed (Raw kept).
	ProposeFailed bool `json:"propose_failed,omitempty"`
	// ReviseFailed marks a revision that held no program.
	ReviseFailed bool   `json:"revise_failed,omitempty"`
	Raw          string `json:"raw,omitempty"`
	// ReviseTokens are the output tokens spent generating this program (0 for
	// a root); ProposeTokens those spent on its diagnosis and edits.
	ReviseTokens    int  `json:"revise_tokens"`
	ProposeTokens   int  `json:"propose_tokens"`
	TokensEstimated bool `json:"tokens_estimated,omitempty"`
}

// Solved reports whether the node's program passes every test.
func (n *Node) Solved() bool { return n.Exec.Solved() }

// Tree is one repair tree grown from one root program of one task. It is
// read-only once built and shared between concurrent replays.
type Tree struct {
	ID     string `json:"tree_id"`
	TaskID string `json:"task_id"`
	Split  string `json:"split"`
	// Source is the task set of the tree's task (SourceOf). Readers fill
	// it for shards written before the source column (see folderSource).
	Source   string `json:"source"`
	K        int    `json:"k"`
	D        int    `json:"depth"`
	Proposer string `json:"proposer"`
	Model    string `json:"model"`
	Nodes    []Node `json:"nodes"`
	Edges    []Edge `json:"edges"`
}

// Root returns the root node.
func (t *Tree) Root() *Node { return &t.Nodes[0] }

// Node returns the node with id.
func (t *Tree) Node(id NodeID) *Node { return &t.Nodes[id] }

// Edge returns the edge with id.
func (t *Tree) Edge(id EdgeID) *Edge { return &t.Edges[id] }

// HasFix reports whether any node of the tree is solved.
func (t *Tree) HasFix() bool {
	for i := range t.Nodes {
		if t.Nodes[i].Solved() {
			return true
		}
	}
	return false
}

// EdgeTokens returns the output tokens an expansion of e costs: the revision
// of the child program plus the child's own diagnosis and edits.
func (t *Tree) EdgeTokens(e EdgeID) int {
	c := t.Edges[e].Child
	if c == NoNode {
		return 0
	}
	n := &t.Nodes[c]
	return n.ReviseTokens + n.ProposeTokens
}

// TreeID is the deterministic id of the tree grown from root number
// rootIndex of task taskID: the first 16 bytes (32 hex digits) of
// sha256(taskID, rootIndex, sha256(root)). Rebuilt, resumed or re-sharded
// builds give the same ids.
func TreeID(taskID string, rootIndex int, root string) string {
	return SHA256(taskID + "\x00" + strconv.Itoa(rootIndex) + "\x00" + SHA256(root))[:32]
}
