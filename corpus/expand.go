package corpus

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// RootPath is the path of a tree's root. A node's path lists the edit
// indices that lead to it ("r/0/2": edit 2 of edit 0 of the root); with the
// tree id it makes the key that seeded proposers derive their choices from,
// so the same node gets the same proposal however the tree is grown.
const RootPath = "r"

// ChildPath is the path of the child of the node at path through its edit i.
func ChildPath(path string, i int) string { return path + "/" + strconv.Itoa(i) }

// Expander is the one expansion step of a repair tree: propose at a node
// (diagnosis and K edits), revise one of its edits, run the revised program
// and record the child. The exhaustive builder (BuildTree) and live search
// (search.Live) both grow trees with it, so a live search with a seeded
// proposer reproduces the nodes of the corpus tree of the same root: the same
// tree id, keys, time limit and coverage choice give the same programs,
// diagnoses and edits.
//
// An Expander is safe for concurrent use: it reads the nodes it is given and
// returns new ones; ids, parents and edges are the caller's to assign.
type Expander struct {
	Task     *Task
	Proposer Proposer
	Executor Executor
	// TreeID names the tree in every proposer key (see TreeID).
	TreeID string
	// K edits per node; D the maximum depth (root = 0).
	K, D int
	// Timeout is the wall-clock limit of every run (zero: the executor's
	// own); CPULimit, when > 0, its CPU-time limit (RunOptions.CPU).
	Timeout  time.Duration
	CPULimit time.Duration
	// ProgramCPULimit is the program's own budget within CPULimit
	// (RunOptions.ProgramCPU; zero: none).
	ProgramCPULimit time.Duration
}

// Header returns the tree's header (no nodes yet) with the names of the
// proposer and model recorded in every row.
func (x *Expander) Header(proposer, model string) *Tree {
	return &Tree{ID: x.TreeID, TaskID: x.Task.ID, Split: SplitOf(x.Task), Source: SourceOf(x.Task), K: x.K, D: x.D, Proposer: proposer, Model: model}
}

// Expandable reports whether n gets a proposal and children: it is unsolved,
// its revision held a program, and it lies above the depth limit.
func (x *Expander) Expandable(n *Node) bool {
	return !n.Solved() && !n.ReviseFailed && n.Depth < x.D
}

// runOptions are the options of a run of a program at depth: per-test
// coverage only where the proposer reads it and the node may be proposed on.
func (x *Expander) runOptions(depth int) RunOptions {
	return RunOptions{Timeout: x.Timeout, CPU: x.CPULimit, ProgramCPU: x.ProgramCPULimit, Coverage: depth < x.D && UsesCoverage(x.Proposer)}
}

// Root runs the root program and returns node 0.
func (x *Expander) Root(ctx context.Context, program string) (Node, error) {
	ex, err := RunWith(ctx, x.Executor, program, x.Task.Test, x.runOptions(0))
	if err != nil {
		return Node{}, fmt.Errorf("tree %s (task %s): run root: %w", x.TreeID, x.Task.ID, err)
	}
	return Node{ID: 0, Parent: NoNode, ViaEdge: -1, Program: program, ProgramSHA: SHA256(program), Exec: ex}, nil
}

// Propose asks for the diagnosis and edits of the node at path when it is
// expandable: it records the diagnosis, tokens and a failed proposal on n
// and returns at most K edits. It returns none for a leaf.
func (x *Expander) Propose(ctx context.Context, n *Node, path string) ([]ProposedEdit, error) {
	if !x.Expandable(n) {
		return nil, nil
	}
	prop, err := x.Proposer.Propose(ctx, ProposeRequest{Task: x.Task, Program: n.Program, Exec: n.Exec, K: x.K,
		Key: x.TreeID + ":" + path})
	if err != nil {
		return nil, fmt.Errorf("tree %s (task %s) node %s: propose: %w", x.TreeID, x.Task.ID, path, err)
	}
	n.Diagnosis = prop.Diagnosis
	n.ProposeTokens = prop.OutputTokens
	n.TokensEstimated = n.TokensEstimated || prop.TokensEstimated
	if prop.Failed {
		n.ProposeFailed = true
		n.Raw = prop.Raw
	}
	edits := prop.Edits
	if len(edits) > x.K {
		edits = edits[:x.K]
	}
	return edits, nil
}

// Child revises edit i of parent (the node at path) and runs the revision.
// A revision that holds no program gives a child marked ReviseFailed with
// an empty program and a load_error execution. The child's id, parent and
// edge are left for the caller to set.
func (x *Expander) Child(ctx context.Context, parent *Node, path string, i int, edit ProposedEdit) (Node, error) {
	cpath := ChildPath(path, i)
	rev, err := x.Proposer.Revise(ctx, ReviseRequest{Task: x.Task, Program: parent.Program, Exec: parent.Exec,
		Diagnosis: parent.Diagnosis, Edit: edit, Key: x.TreeID + ":" + cpath})
	if err != nil {
		return Node{}, fmt.Errorf("tree %s (task %s) node %s: revise: %w", x.TreeID, x.Task.ID, cpath, err)
	}
	child := Node{ID: NoNode, Parent: parent.ID, ViaEdge: -1, Depth: parent.Depth + 1,
		ReviseTokens: rev.OutputTokens, TokensEstimated: rev.TokensEstimated}
	if rev.Failed || rev.Program == "" {
		child.ReviseFailed = true
		child.Raw = rev.Raw
		child.ProgramSHA = SHA256("")
		child.Exec = Execution{Status: StatusLoadError, PassRate: 0, FailedFrac: 1,
			Feedback: "the revision held no program"}
		return child, nil
	}
	child.Program = rev.Program
	child.ProgramSHA = SHA256(rev.Program)
	child.Exec, err = RunWith(ctx, x.Executor, rev.Program, x.Task.Test, x.runOptions(child.Depth))
	if err != nil {
		return Node{}, fmt.Errorf("tree %s (task %s) node %s: run: %w", x.TreeID, x.Task.ID, cpath, err)
	}
	return child, nil
}
