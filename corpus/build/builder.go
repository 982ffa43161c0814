package build

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"triage/corpus"
)

// BuildConfig configures the exhaustive tree builder.
type BuildConfig struct {
	// K is the number of edits asked per node; D the maximum depth (root = 0).
	K, D int
	// Proposer diagnoses programs and writes revisions.
	Proposer corpus.Proposer
	// Executor runs programs against the task's tests. Unless it is a
	// CachedExecutor already, it is wrapped in a per-tree one, so identical
	// programs run once.
	Executor corpus.Executor
	// ProposerName and Model are recorded in every row (e.g. "mutate", "").
	ProposerName string
	Model        string
	// Timeout is the wall-clock limit of every run (zero: the executor's
	// own), and CPULimit, when > 0, its CPU-time limit (Timeout is then the
	// backstop); BuildCorpus sets them per task from the task's reference
	// (TimeLimits).
	Timeout  time.Duration
	CPULimit time.Duration
	// ProgramCPULimit is the program's own budget within CPULimit
	// (RunOptions.ProgramCPU; zero: none).
	ProgramCPULimit time.Duration
}

// setLimits sets the config's limits to o's.
func (c *BuildConfig) setLimits(o corpus.RunOptions) {
	c.Timeout, c.CPULimit, c.ProgramCPULimit = o.Timeout, o.CPU, o.ProgramCPU
}

// runOptions are the config's limits as run options (no coverage).
func (c BuildConfig) runOptions() corpus.RunOptions {
	return corpus.RunOptions{Timeout: c.Timeout, CPU: c.CPULimit, ProgramCPU: c.ProgramCPULimit}
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

// BuildTree grows the exhaustive repair tree of one root: every proposed
// edit of every expandable node (unsolved, with a program, above depth D) is
// revised and executed. Solved nodes are leaves; a failed revision gives a
// child marked ReviseFailed with an empty program and a load_error
// execution, which is not expanded further. Siblings grow concurrently (the
// executor bounds how many runs proceed at once); nodes and edges are then
// numbered breadth first, so the tree does not depend on the order in which
// runs finished. Labels are filled once the tree is complete. Errors are for
// cancellation and broken proposers or executors only.
func BuildTree(ctx context.Context, cfg BuildConfig, task *corpus.Task, rootIndex int, root string) (*corpus.Tree, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if task == nil {
		return nil, fmt.Errorf("build tree: nil task")
	}
	// Identical programs run once: in a cache of the tree's own unless the
	// caller shares one (BuildCorpus shares one per task).
	exec := cfg.Executor
	if _, ok := exec.(*CachedExecutor); !ok {
		exec = NewCachedExecutor(exec)
	}
	x := &corpus.Expander{Task: task, Proposer: cfg.Proposer, Executor: exec,
		TreeID: corpus.TreeID(task.ID, rootIndex, root), K: cfg.K, D: cfg.D, Timeout: cfg.Timeout, CPULimit: cfg.CPULimit, ProgramCPULimit: cfg.ProgramCPULimit}
	return Exhaust(ctx, x, root, cfg.ProposerName, cfg.Model)
}

// growth is a node of a tree being grown, before numbering.
type growth struct {
	node  corpus.Node
	path  string
	edits []corpus.ProposedEdit
	kids  []*growth // by edit index
}

// Exhaust grows the exhaustive tree of root with x (see BuildTree).
func Exhaust(ctx context.Context, x *corpus.Expander, root, proposer, model string) (*corpus.Tree, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rn, err := x.Root(ctx, root)
	if err != nil {
		return nil, err
	}
	g := &growth{node: rn, path: corpus.RootPath}
	growNode(ctx, x, cancel, g)
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	t := x.Header(proposer, model)
	number(t, g)
	corpus.ComputeLabels(t)
	return t, nil
}

// growNode proposes at g with x and grows its children concurrently; the first error
// cancels the rest and is the context's cause. This is a recursive fan-out,
// not a bounded pool: the executor bounds the real work, and a limit here
// (errgroup.SetLimit) would deadlock parents waiting on their children.
func growNode(ctx context.Context, x *corpus.Expander, fail context.CancelCauseFunc, g *growth) {
	edits, err := x.Propose(ctx, &g.node, g.path)
	if err != nil {
		fail(err)
		return
	}
	g.edits = edits
	g.kids = make([]*growth, len(edits))
	var wg sync.WaitGroup
	for i, ed := range edits {
		wg.Go(func() {
			if ctx.Err() != nil {
				return
			}
			c, err := x.Child(ctx, &g.node, g.path, i, ed)
			if err != nil {
				fail(err)
				return
			}
			k := &growth{node: c, path: corpus.ChildPath(g.path, i)}
			g.kids[i] = k
			growNode(ctx, x, fail, k)
		})
	}
	wg.Wait()
}

// number lays a grown tree out breadth first: node v's edits become
// consecutive edges, and its children the next nodes, in edit order, as a
// sequential breadth-first builder would number them.
func number(t *corpus.Tree, root *growth) {
	root.node.ID, root.node.Parent, root.node.ViaEdge = 0, corpus.NoNode, -1
	t.Nodes = append(t.Nodes, root.node)
	queue := []*growth{root}
	for v := 0; v < len(queue); v++ {
		g := queue[v]
		for i, ed := range g.edits {
			eid := corpus.EdgeID(len(t.Edges))
			t.Edges = append(t.Edges, corpus.Edge{ID: eid, Parent: corpus.NodeID(v), Index: i, Edit: ed, Child: corpus.NoNode})
			t.Nodes[v].Edges = append(t.Nodes[v].Edges, eid)
		}
		for i, k := range g.kids {
			if k == nil {
				continue
			}
			eid := t.Nodes[v].Edges[i]
			k.node.ID, k.node.Parent, k.node.ViaEdge = corpus.NodeID(len(t.Nodes)), corpus.NodeID(v), eid
			t.Edges[eid].Child = k.node.ID
			t.Nodes = append(t.Nodes, k.node)
			queue = append(queue, k)
		}
	}
}

// CachedExecutor runs each distinct (program, tests, time limit) once and
// returns copies of the first result afterwards. A run with per-test
// coverage also answers a request without it (its Lines dropped), never the
// reverse. It is safe for concurrent use; concurrent calls for the same key
// wait for one run.
type CachedExecutor struct {
	inner corpus.Executor
	mu    sync.Mutex
	memo  map[[32]byte]*cacheSlot
	hits  int64
}

// cacheSlot holds the runs of one key with and without coverage.
type cacheSlot struct{ cov, plain *cacheEntry }

type cacheEntry struct {
	done chan struct{}
	exec corpus.Execution
	err  error
}

// NewCachedExecutor wraps inner with an unbounded in-memory cache; use one
// per tree or per task so memory stays bounded.
func NewCachedExecutor(inner corpus.Executor) *CachedExecutor {
	return &CachedExecutor{inner: inner, memo: map[[32]byte]*cacheSlot{}}
}

// runKey hashes a run's inputs unambiguously (lengths prefix the strings);
// timeout and cpu -1 mark a Run with the executor's own settings.
func runKey(program, tests string, timeout, cpu time.Duration) [32]byte {
	h := sha256.New()
	var b [8]byte
	for _, s := range []string{program, tests} {
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		h.Write([]byte(s))
	}
	for _, d := range []time.Duration{timeout, cpu} {
		binary.LittleEndian.PutUint64(b[:], uint64(d))
		h.Write(b[:])
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Run implements Executor: the inner executor's own settings.
func (c *CachedExecutor) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	return c.run(ctx, runKey(program, tests, -1, -1), false, func() (corpus.Execution, error) {
		return c.inner.Run(ctx, program, tests)
	})
}

// RunWith implements OptionsExecutor.
func (c *CachedExecutor) RunWith(ctx context.Context, program, tests string, o corpus.RunOptions) (corpus.Execution, error) {
	return c.run(ctx, runKey(program, tests, max(o.Timeout, 0), max(o.CPU, 0)), o.Coverage, func() (corpus.Execution, error) {
		return corpus.RunWith(ctx, c.inner, program, tests, o)
	})
}

func (c *CachedExecutor) run(ctx context.Context, key [32]byte, cov bool, run func() (corpus.Execution, error)) (corpus.Execution, error) {
	for {
		c.mu.Lock()
		s := c.memo[key]
		if s == nil {
			s = &cacheSlot{}
			c.memo[key] = s
		}
		e, strip := s.plain, false
		if cov {
			e = s.cov
		} else if s.cov != nil {
			e, strip = s.cov, true
		}
		if e == nil {
			e = &cacheEntry{done: make(chan struct{})}
			if cov {
				s.cov = e
			} else {
				s.plain = e
			}
			c.mu.Unlock()
			e.exec, e.err = run()
			if e.err != nil {
				c.mu.Lock() // do not cache infrastructure errors
				if s.cov == e {
					s.cov = nil
				}
				if s.plain == e {
					s.plain = nil
				}
				c.mu.Unlock()
			}
			close(e.done)
			return copyExecution(e.exec, false), e.err
		}
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return corpus.Execution{}, ctx.Err()
		}
		if e.err != nil {
			if err := ctx.Err(); err != nil {
				return corpus.Execution{}, err
			}
			continue // the first caller failed (e.g. was cancelled): run it again
		}
		c.mu.Lock()
		c.hits++
		c.mu.Unlock()
		return copyExecution(e.exec, strip), nil
	}
}

// Hits returns how many calls were answered from the cache.
func (c *CachedExecutor) Hits() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// copyExecution copies e's slices so callers cannot change the cache;
// noLines drops per-test coverage.
func copyExecution(e corpus.Execution, noLines bool) corpus.Execution {
	if e.Tests != nil {
		tests := make([]corpus.TestResult, len(e.Tests))
		copy(tests, e.Tests)
		for i := range tests {
			if noLines {
				tests[i].Lines = nil
			} else if tests[i].Lines != nil {
				tests[i].Lines = append([]int32(nil), tests[i].Lines...)
			}
		}
		e.Tests = tests
	}
	return e
}
