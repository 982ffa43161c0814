package shard

import (
	"fmt"
	"sort"

	"triage/corpus"
)

// SchemaVersion names the row layout of NodeRow; it is stored in every
// shard's key/value metadata and in the manifest.
const SchemaVersion = "triage-corpus/1"

// NodeRow is one Parquet row: one node of one tree, with the edits proposed
// at it (and their labels) nested. docs/corpus-schema.md documents every
// column.
type NodeRow struct {
	TaskID     string `parquet:"task_id,dict"`
	TreeID     string `parquet:"tree_id,dict"`
	Split      string `parquet:"split,dict"`
	Source     string `parquet:"source,dict"`
	RootIndex  int32  `parquet:"root_index"`
	K          int32  `parquet:"k"`
	DepthLimit int32  `parquet:"depth_limit"`
	TreeNodes  int32  `parquet:"tree_nodes"`
	Proposer   string `parquet:"proposer,dict"`
	Model      string `parquet:"model,dict"`

	NodeID   int32 `parquet:"node_id"`
	ParentID int32 `parquet:"parent_id"`
	EdgeID   int32 `parquet:"edge_id"`
	Depth    int32 `parquet:"depth"`

	Program    string    `parquet:"program"`
	ProgramSHA string    `parquet:"program_sha256"`
	Status     string    `parquet:"status,dict"`
	Tests      []TestRow `parquet:"tests,list"`
	PassRate   float64   `parquet:"pass_rate"`
	FailedFrac float64   `parquet:"failed_frac"`
	Feedback   string    `parquet:"feedback"`
	ExecMS     float64   `parquet:"exec_duration_ms"`
	Solved     bool      `parquet:"solved"`

	Diagnosis     string    `parquet:"diagnosis"`
	Edits         []EditRow `parquet:"edits,list"`
	ProposeFailed bool      `parquet:"propose_failed"`
	ReviseFailed  bool      `parquet:"revise_failed"`
	Raw           string    `parquet:"raw"`

	ReviseTokens    int32 `parquet:"revise_tokens"`
	ProposeTokens   int32 `parquet:"propose_tokens"`
	OutputTokens    int32 `parquet:"output_tokens"`
	TokensEstimated bool  `parquet:"tokens_estimated"`
}

// TestRow is one test verdict of a node.
type TestRow struct {
	Name       string  `parquet:"name"`
	Passed     bool    `parquet:"passed"`
	DurationMS float64 `parquet:"duration_ms"`
	Message    string  `parquet:"message"`
	Lines      []int32 `parquet:"lines,list"`
}

// EditRow is one edit proposed at a node, with its child and label.
type EditRow struct {
	EditID  int32  `parquet:"edit_id"`
	Index   int32  `parquet:"index"`
	Text    string `parquet:"text"`
	Payload string `parquet:"payload"`
	// ProposerScore is ProposedEdit.Score; null where the proposer gave none
	// (and in shards written before the column existed).
	ProposerScore *float64 `parquet:"proposer_score,optional"`
	ChildNodeID   int32    `parquet:"child_node_id"`
	T             int32    `parquet:"t"`
	B             int32    `parquet:"b"`
	Censored      bool     `parquet:"censored"`
}

// TreeRows flattens a tree into its rows, in node order. rootIndex is the
// root's position among its task's roots.
func TreeRows(t *corpus.Tree, rootIndex int) []NodeRow {
	rows := make([]NodeRow, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		r := NodeRow{
			TaskID: t.TaskID, TreeID: t.ID, Split: t.Split, Source: t.Source, RootIndex: int32(rootIndex),
			K: int32(t.K), DepthLimit: int32(t.D), TreeNodes: int32(len(t.Nodes)),
			Proposer: t.Proposer, Model: t.Model,
			NodeID: int32(n.ID), ParentID: int32(n.Parent), EdgeID: int32(n.ViaEdge), Depth: int32(n.Depth),
			Program: n.Program, ProgramSHA: n.ProgramSHA, Status: string(n.Exec.Status),
			PassRate: n.Exec.PassRate, FailedFrac: n.Exec.FailedFrac, Feedback: n.Exec.Feedback,
			ExecMS: n.Exec.DurationMS, Solved: n.Solved(),
			Diagnosis: n.Diagnosis, ProposeFailed: n.ProposeFailed, ReviseFailed: n.ReviseFailed, Raw: n.Raw,
			ReviseTokens: int32(n.ReviseTokens), ProposeTokens: int32(n.ProposeTokens),
			OutputTokens: int32(n.ReviseTokens + n.ProposeTokens), TokensEstimated: n.TokensEstimated,
		}
		if len(n.Exec.Tests) > 0 {
			r.Tests = make([]TestRow, len(n.Exec.Tests))
			for j, tr := range n.Exec.Tests {
				r.Tests[j] = TestRow{Name: tr.Name, Passed: tr.Passed, DurationMS: tr.DurationMS, Message: tr.Message, Lines: tr.Lines}
			}
		}
		if len(n.Edges) > 0 {
			r.Edits = make([]EditRow, len(n.Edges))
			for j, eid := range n.Edges {
				e := &t.Edges[eid]
				r.Edits[j] = EditRow{EditID: int32(e.ID), Index: int32(e.Index), Text: e.Edit.Text, Payload: e.Edit.Payload,
					ProposerScore: e.Edit.Score, ChildNodeID: int32(e.Child), T: e.Label.T, B: e.Label.B, Censored: e.Label.Censored}
			}
		}
		rows[i] = r
	}
	return rows
}

// TreeFromRows rebuilds a tree from all of its rows (any order). It checks
// that the rows are one whole tree: ids dense, parents before children, the
// node count equal to tree_nodes, every edge id used once.
func TreeFromRows(rows []NodeRow) (*corpus.Tree, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("tree from rows: no rows")
	}
	f := &rows[0]
	if int(f.TreeNodes) != len(rows) {
		return nil, fmt.Errorf("tree %s: %d rows, want tree_nodes=%d (incomplete tree)", f.TreeID, len(rows), f.TreeNodes)
	}
	sorted := make([]*NodeRow, len(rows))
	for i := range rows {
		sorted[i] = &rows[i]
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].NodeID < sorted[j].NodeID })
	t := &corpus.Tree{ID: f.TreeID, TaskID: f.TaskID, Split: f.Split, Source: f.Source, K: int(f.K), D: int(f.DepthLimit),
		Proposer: f.Proposer, Model: f.Model, Nodes: make([]corpus.Node, len(rows))}
	nEdges := 0
	for _, r := range sorted {
		nEdges += len(r.Edits)
	}
	if nEdges > 0 {
		t.Edges = make([]corpus.Edge, nEdges)
	}
	seen := make([]bool, nEdges)
	for i, r := range sorted {
		if r.TreeID != t.ID {
			return nil, fmt.Errorf("tree %s: row of tree %s mixed in", t.ID, r.TreeID)
		}
		if int(r.NodeID) != i {
			return nil, fmt.Errorf("tree %s: node ids not dense (missing or duplicate node %d)", t.ID, i)
		}
		if i == 0 && r.ParentID != int32(corpus.NoNode) {
			return nil, fmt.Errorf("tree %s: root has parent %d", t.ID, r.ParentID)
		}
		if i > 0 && (r.ParentID < 0 || int(r.ParentID) >= i) {
			return nil, fmt.Errorf("tree %s: node %d has bad parent %d", t.ID, i, r.ParentID)
		}
		n := corpus.Node{ID: corpus.NodeID(r.NodeID), Parent: corpus.NodeID(r.ParentID), ViaEdge: corpus.EdgeID(r.EdgeID), Depth: int(r.Depth),
			Program: r.Program, ProgramSHA: r.ProgramSHA,
			Exec: corpus.Execution{Status: corpus.Status(r.Status), PassRate: r.PassRate, FailedFrac: r.FailedFrac,
				Feedback: r.Feedback, DurationMS: r.ExecMS},
			Diagnosis: r.Diagnosis, ProposeFailed: r.ProposeFailed, ReviseFailed: r.ReviseFailed, Raw: r.Raw,
			ReviseTokens: int(r.ReviseTokens), ProposeTokens: int(r.ProposeTokens), TokensEstimated: r.TokensEstimated}
		if len(r.Tests) > 0 {
			n.Exec.Tests = make([]corpus.TestResult, len(r.Tests))
			for j, tr := range r.Tests {
				var lines []int32
				if len(tr.Lines) > 0 {
					lines = tr.Lines
				}
				n.Exec.Tests[j] = corpus.TestResult{Name: tr.Name, Passed: tr.Passed, DurationMS: tr.DurationMS, Message: tr.Message, Lines: lines}
			}
		}
		for _, er := range r.Edits {
			if er.EditID < 0 || int(er.EditID) >= nEdges || seen[er.EditID] {
				return nil, fmt.Errorf("tree %s: node %d: bad or duplicate edit id %d", t.ID, i, er.EditID)
			}
			if er.ChildNodeID != int32(corpus.NoNode) && (er.ChildNodeID <= int32(i) || int(er.ChildNodeID) >= len(rows)) {
				return nil, fmt.Errorf("tree %s: edit %d: bad child %d", t.ID, er.EditID, er.ChildNodeID)
			}
			seen[er.EditID] = true
			t.Edges[er.EditID] = corpus.Edge{ID: corpus.EdgeID(er.EditID), Parent: corpus.NodeID(i), Index: int(er.Index),
				Edit: corpus.ProposedEdit{Text: er.Text, Payload: er.Payload, Score: er.ProposerScore}, Child: corpus.NodeID(er.ChildNodeID),
				Label: corpus.Label{T: er.T, B: er.B, Censored: er.Censored}}
			n.Edges = append(n.Edges, corpus.EdgeID(er.EditID))
		}
		t.Nodes[i] = n
	}
	return t, nil
}
