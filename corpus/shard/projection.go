package shard

import (
	"fmt"

	"triage/corpus"
)

// Columns selects what a TreeReader decodes of each row.
type Columns int

const (
	// ReplayColumns are what a replay of the baseline policies reads: the
	// tree's structure, statuses, pass rates, test verdicts, output tokens
	// and labels. No text is decoded: programs, feedback, diagnoses, raw
	// output, edit texts and payloads, and test names and messages are
	// empty (each test keeps its verdict, so Node.Solved holds).
	ReplayColumns Columns = iota
	// ScorerColumns add the text that the learned policy's scorer reads
	// (policy.Input): each node's program, feedback and diagnosis and each
	// edge's text and proposer score.
	ScorerColumns
	// AllColumns decode every column: the trees LoadTrees returns.
	AllColumns
)

// String names c as the flags and logs do.
func (c Columns) String() string {
	switch c {
	case ReplayColumns:
		return "replay"
	case ScorerColumns:
		return "scorer"
	case AllColumns:
		return "all"
	}
	return fmt.Sprintf("Columns(%d)", int(c))
}

// replayRow is the ReplayColumns projection of NodeRow: every column but
// the text ones (and the program hash, test durations and coverage, which
// no replay reads). Reading a file into it decodes only these columns.
type replayRow struct {
	TaskID     string `parquet:"task_id,dict"`
	TreeID     string `parquet:"tree_id,dict"`
	Split      string `parquet:"split,dict"`
	Source     string `parquet:"source,dict"`
	K          int32  `parquet:"k"`
	DepthLimit int32  `parquet:"depth_limit"`
	TreeNodes  int32  `parquet:"tree_nodes"`
	Proposer   string `parquet:"proposer,dict"`
	Model      string `parquet:"model,dict"`

	NodeID   int32 `parquet:"node_id"`
	ParentID int32 `parquet:"parent_id"`
	EdgeID   int32 `parquet:"edge_id"`
	Depth    int32 `parquet:"depth"`

	Status     string          `parquet:"status,dict"`
	Tests      []replayTestRow `parquet:"tests,list"`
	PassRate   float64         `parquet:"pass_rate"`
	FailedFrac float64         `parquet:"failed_frac"`

	Edits         []replayEditRow `parquet:"edits,list"`
	ProposeFailed bool            `parquet:"propose_failed"`
	ReviseFailed  bool            `parquet:"revise_failed"`

	ReviseTokens    int32 `parquet:"revise_tokens"`
	ProposeTokens   int32 `parquet:"propose_tokens"`
	TokensEstimated bool  `parquet:"tokens_estimated"`
}

// replayTestRow keeps a test's verdict only.
type replayTestRow struct {
	Passed bool `parquet:"passed"`
}

// replayEditRow is an edit without its text and payload.
type replayEditRow struct {
	EditID      int32 `parquet:"edit_id"`
	Index       int32 `parquet:"index"`
	ChildNodeID int32 `parquet:"child_node_id"`
	T           int32 `parquet:"t"`
	B           int32 `parquet:"b"`
	Censored    bool  `parquet:"censored"`
}

// scorerTextRow is the text ScorerColumns add, read only for the rows of
// trees that passed the split filter.
type scorerTextRow struct {
	TreeID    string              `parquet:"tree_id,dict"`
	NodeID    int32               `parquet:"node_id"`
	Program   string              `parquet:"program"`
	Feedback  string              `parquet:"feedback"`
	Diagnosis string              `parquet:"diagnosis"`
	Edits     []scorerTextEditRow `parquet:"edits,list"`
}

// scorerTextEditRow is an edit's text and the proposer's score of it.
type scorerTextEditRow struct {
	EditID        int32    `parquet:"edit_id"`
	Text          string   `parquet:"text"`
	ProposerScore *float64 `parquet:"proposer_score,optional"`
}

// nodeRow widens a replay row to a NodeRow (text columns empty), so that
// TreeFromRows checks and builds projected trees like whole ones.
func (r *replayRow) nodeRow() NodeRow {
	n := NodeRow{TaskID: r.TaskID, TreeID: r.TreeID, Split: r.Split, Source: r.Source, K: r.K, DepthLimit: r.DepthLimit,
		TreeNodes: r.TreeNodes, Proposer: r.Proposer, Model: r.Model,
		NodeID: r.NodeID, ParentID: r.ParentID, EdgeID: r.EdgeID, Depth: r.Depth,
		Status: r.Status, PassRate: r.PassRate, FailedFrac: r.FailedFrac,
		ProposeFailed: r.ProposeFailed, ReviseFailed: r.ReviseFailed,
		ReviseTokens: r.ReviseTokens, ProposeTokens: r.ProposeTokens, TokensEstimated: r.TokensEstimated}
	if len(r.Tests) > 0 {
		n.Tests = make([]TestRow, len(r.Tests))
		for i, t := range r.Tests {
			n.Tests[i].Passed = t.Passed
		}
	}
	if len(r.Edits) > 0 {
		n.Edits = make([]EditRow, len(r.Edits))
		for i, e := range r.Edits {
			n.Edits[i] = EditRow{EditID: e.EditID, Index: e.Index, ChildNodeID: e.ChildNodeID, T: e.T, B: e.B, Censored: e.Censored}
		}
	}
	return n
}

// addScorerText fills t's scorer text from rows, the text of t's rows in
// file order.
func addScorerText(t *corpus.Tree, rows []scorerTextRow) error {
	if len(rows) != len(t.Nodes) {
		return fmt.Errorf("tree %s: %d text rows for %d nodes", t.ID, len(rows), len(t.Nodes))
	}
	for i := range rows {
		r := &rows[i]
		if r.TreeID != t.ID || r.NodeID < 0 || int(r.NodeID) >= len(t.Nodes) {
			return fmt.Errorf("tree %s: text row %d belongs to tree %s node %d", t.ID, i, r.TreeID, r.NodeID)
		}
		n := &t.Nodes[r.NodeID]
		n.Program, n.Exec.Feedback, n.Diagnosis = r.Program, r.Feedback, r.Diagnosis
		if len(r.Edits) != len(n.Edges) {
			return fmt.Errorf("tree %s: node %d: %d edit texts for %d edits", t.ID, r.NodeID, len(r.Edits), len(n.Edges))
		}
		for j, e := range r.Edits {
			if e.EditID != int32(n.Edges[j]) {
				return fmt.Errorf("tree %s: node %d: edit text %d for edit %d", t.ID, r.NodeID, e.EditID, n.Edges[j])
			}
			t.Edges[e.EditID].Edit.Text = e.Text
			t.Edges[e.EditID].Edit.Score = e.ProposerScore
		}
	}
	return nil
}
