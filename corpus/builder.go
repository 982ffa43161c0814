package corpus

import (
	"context"
	"fmt"
	"strconv"
	"sync"
)

// BuildConfig configures the exhaustive tree builder.
type BuildConfig struct {
	// K is the number of edits asked per node; D the maximum depth (root = 0).
	K, D int
	// Proposer diagnoses programs and writes revisions.
	Proposer Proposer
	// Executor runs programs against the task's tests. It is wrapped in a
	// per-tree cache keyed by sha256, so identical programs run once.
	Executor Executor
	// ProposerName and Model are recorded in every row (e.g. "mutate", "").
	ProposerName string
	Model        string
}

func (c BuildConfig) validate() error {
	if c.K < 1 {
		return fmt.Errorf("build config: k must be ≥ 1, got %d", c.K)
	}
	if c.D < 1 {
		return fmt.Errorf("build config: depth must be ≥ 1, got %d", c.D)
	}
	if c.Proposer == nil || c.Executor == nil {
		return fmt.Errorf("build config: proposer and executor are required")
	}
	return nil
}

// TreeID is the deterministic id of the tree grown from root number
// rootIndex of task taskID: the first 16 bytes (32 hex digits) of
// sha256(taskID, rootIndex, sha256(root)). Rebuilt, resumed or re-sharded
// builds give the same ids.
func TreeID(taskID string, rootIndex int, root string) string {
	return SHA256(taskID + "\x00" + strconv.Itoa(rootIndex) + "\x00" + SHA256(root))[:32]
}

// BuildTree grows the exhaustive repair tree of one root: breadth first,
// every proposed edit of every node at depth < D is revised and executed.
// Solved nodes are leaves; a failed revision gives a child marked
// ReviseFailed with an empty program and a load_error execution, which is
// not expanded further. Labels are filled once the tree is complete.
// Errors are for cancellation and broken proposers or executors only.
func BuildTree(ctx context.Context, cfg BuildConfig, task *Task, rootIndex int, root string) (*Tree, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if task == nil {
		return nil, fmt.Errorf("build tree: nil task")
	}
	exec := NewCachedExecutor(cfg.Executor)
	t := &Tree{
		ID:       TreeID(task.ID, rootIndex, root),
		TaskID:   task.ID,
		Split:    splitOf(task),
		K:        cfg.K,
		D:        cfg.D,
		Proposer: cfg.ProposerName,
		Model:    cfg.Model,
	}
	rootExec, err := exec.Run(ctx, root, task.Test)
	if err != nil {
		return nil, fmt.Errorf("tree %s (task %s root %d): run root: %w", t.ID, task.ID, rootIndex, err)
	}
	t.Nodes = append(t.Nodes, Node{ID: 0, Parent: NoNode, ViaEdge: -1, Depth: 0,
		Program: root, ProgramSHA: SHA256(root), Exec: rootExec})
	paths := []string{"r"}
	for v := 0; v < len(t.Nodes); v++ { // t.Nodes grows: breadth-first order
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("tree %s: %w", t.ID, err)
		}
		n := t.Nodes[v]
		if n.Solved() || n.ReviseFailed || n.Depth >= cfg.D {
			continue
		}
		key := t.ID + ":" + paths[v]
		prop, err := cfg.Proposer.Propose(ctx, ProposeRequest{Task: task, Program: n.Program, Exec: n.Exec, K: cfg.K, Key: key})
		if err != nil {
			return nil, fmt.Errorf("tree %s (task %s) node %s: propose: %w", t.ID, task.ID, paths[v], err)
		}
		edits := prop.Edits
		if len(edits) > cfg.K {
			edits = edits[:cfg.K]
		}
		pn := &t.Nodes[v]
		pn.Diagnosis = prop.Diagnosis
		pn.ProposeTokens = prop.OutputTokens
		pn.TokensEstimated = pn.TokensEstimated || prop.TokensEstimated
		if prop.Failed {
			pn.ProposeFailed = true
			pn.Raw = prop.Raw
		}
		for i, ed := range edits {
			eid := EdgeID(len(t.Edges))
			t.Edges = append(t.Edges, Edge{ID: eid, Parent: NodeID(v), Index: i, Edit: ed, Child: NoNode})
			t.Nodes[v].Edges = append(t.Nodes[v].Edges, eid)
		}
		for i, eid := range t.Nodes[v].Edges {
			cpath := paths[v] + "/" + strconv.Itoa(i)
			parent := &t.Nodes[v]
			rev, err := cfg.Proposer.Revise(ctx, ReviseRequest{Task: task, Program: parent.Program, Exec: parent.Exec,
				Diagnosis: parent.Diagnosis, Edit: t.Edges[eid].Edit, Key: t.ID + ":" + cpath})
			if err != nil {
				return nil, fmt.Errorf("tree %s (task %s) node %s: revise: %w", t.ID, task.ID, cpath, err)
			}
			child := Node{ID: NodeID(len(t.Nodes)), Parent: NodeID(v), ViaEdge: eid, Depth: parent.Depth + 1,
				ReviseTokens: rev.OutputTokens, TokensEstimated: rev.TokensEstimated}
			if rev.Failed || rev.Program == "" {
				child.ReviseFailed = true
				child.Raw = rev.Raw
				child.ProgramSHA = SHA256("")
				child.Exec = Execution{Status: StatusLoadError, PassRate: 0, FailedFrac: 1,
					Feedback: "the revision held no program"}
			} else {
				child.Program = rev.Program
				child.ProgramSHA = SHA256(rev.Program)
				child.Exec, err = exec.Run(ctx, rev.Program, task.Test)
				if err != nil {
					return nil, fmt.Errorf("tree %s (task %s) node %s: run: %w", t.ID, task.ID, cpath, err)
				}
			}
			t.Edges[eid].Child = child.ID
			t.Nodes = append(t.Nodes, child)
			paths = append(paths, cpath)
		}
	}
	ComputeLabels(t)
	return t, nil
}

// CachedExecutor runs each distinct (program, tests) pair once and returns
// copies of the first result afterwards. It is safe for concurrent use;
// concurrent calls for the same key wait for one run.
type CachedExecutor struct {
	inner Executor
	mu    sync.Mutex
	memo  map[string]*cacheEntry
	hits  int64
}

type cacheEntry struct {
	done chan struct{}
	exec Execution
	err  error
}

// NewCachedExecutor wraps inner with an unbounded in-memory cache; use one
// per tree or per task so memory stays bounded.
func NewCachedExecutor(inner Executor) *CachedExecutor {
	if c, ok := inner.(*CachedExecutor); ok {
		inner = c // still wrap: a fresh scope that falls through to the shared one
	}
	return &CachedExecutor{inner: inner, memo: map[string]*cacheEntry{}}
}

// Run implements Executor.
func (c *CachedExecutor) Run(ctx context.Context, program, tests string) (Execution, error) {
	key := SHA256(program + "\x00" + tests)
	c.mu.Lock()
	e, ok := c.memo[key]
	if ok {
		c.hits++
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return Execution{}, ctx.Err()
		}
		return copyExecution(e.exec), e.err
	}
	e = &cacheEntry{done: make(chan struct{})}
	c.memo[key] = e
	c.mu.Unlock()
	e.exec, e.err = c.inner.Run(ctx, program, tests)
	if e.err != nil {
		c.mu.Lock()
		delete(c.memo, key) // do not cache infrastructure errors
		c.mu.Unlock()
	}
	close(e.done)
	return copyExecution(e.exec), e.err
}

// Hits returns how many calls were answered from the cache.
func (c *CachedExecutor) Hits() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

func copyExecution(e Execution) Execution {
	if e.Tests != nil {
		tests := make([]TestResult, len(e.Tests))
		copy(tests, e.Tests)
		e.Tests = tests
	}
	return e
}
