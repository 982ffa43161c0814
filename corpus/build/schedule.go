package build

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"triage/corpus"
	"triage/corpus/manifest"
)

// shardPlan is one shard this build owns: its task range and, while it is
// built, its tasks.
type shardPlan struct {
	index      int
	first, end int
	tasks      []*taskState
	left       int // tasks not yet finished
}

// taskState is one task of a pending shard as the build goes.
type taskState struct {
	index int
	check TaskCheck
	cache *CachedExecutor
	trees []*corpus.Tree
	left  int // trees not yet built
	skip  string
}

func (ts *taskState) record(tasks []corpus.Task) manifest.TaskRecord {
	return manifest.TaskRecord{Index: ts.index, TaskID: tasks[ts.index].ID, ReferenceMS: ts.check.ReferenceMS,
		ProgramMS: ts.check.ProgramMS, HarnessMS: ts.check.HarnessMS, OwnMS: ts.check.OwnMS, LimitMS: float64(ts.check.Limit) / float64(time.Millisecond),
		ProgramLimitMS: float64(ts.check.ProgramLimit) / float64(time.Millisecond), Trees: len(ts.trees), Skipped: ts.skip}
}

// buildEvent is what the build's goroutines tell the collector.
type buildEvent struct {
	task  *taskState
	shard *shardPlan
	tree  int          // root index of a finished tree, or -1
	t     *corpus.Tree // the tree
	roots bool         // the task's roots are known
	entry *manifest.ShardEntry
	err   error
	// grown reports that the dispatcher and every tree are done: no
	// shard can complete after it.
	grown bool
}

// buildGrowth is the growing phase of one build: the settings, the pending
// shards, and the channels its goroutines share. A dispatcher goes through
// the tasks in order, makes each task's roots and starts its trees, at
// most TreesInFlight at once; a writer goroutine writes complete shards;
// the calling goroutine collects what both report.
type buildGrowth struct {
	cfg     BuildConfig
	copts   CheckOptions
	opts    BuildOptions
	tasks   []corpus.Task
	pending []*shardPlan
	w       *shardWriter
	m       *meter
	prog    *Progress
	report  func()
	log     *slog.Logger

	events      chan buildEvent
	treeSlots   chan struct{}
	shardTokens chan struct{} // at most shardsOpen shards hold trees in memory
	writes      chan *shardPlan
	wg          sync.WaitGroup
}

// shardsOpen is the most shards that hold trees in memory at once.
const shardsOpen = 3

// grow builds the trees of the pending shards and writes each shard when
// its last tree is done. A failure or a cancelled ctx stops the growing,
// but every shard whose trees were all done is still written: a build
// keeps what it finished.
func grow(ctx context.Context, g *buildGrowth) error {
	growCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	g.events = make(chan buildEvent)
	g.treeSlots = make(chan struct{}, g.opts.TreesInFlight)
	g.shardTokens = make(chan struct{}, shardsOpen)
	g.writes = make(chan *shardPlan, len(g.pending))
	written := make(chan struct{})
	go func() { g.writer(); close(written) }()
	g.wg.Go(func() { g.dispatch(growCtx) })
	go func() {
		g.wg.Wait()
		g.events <- buildEvent{grown: true}
		<-written
		close(g.events)
	}()
	return g.collect(ctx, cancel)
}

// send reports ev to the collector, unless the build is cancelled.
func (g *buildGrowth) send(ctx context.Context, ev buildEvent) {
	select {
	case g.events <- ev:
	case <-ctx.Done():
	}
}

// acquire takes a slot of c, or reports false when the build is cancelled.
func acquire(ctx context.Context, c chan struct{}) bool {
	select {
	case c <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// writer writes each complete shard queued on writes until the collector
// closes it. It does not watch the build's context: a shard queued before
// a failure is complete, and writing it takes a moment.
func (g *buildGrowth) writer() {
	for p := range g.writes {
		e, err := g.w.write(p)
		<-g.shardTokens
		g.events <- buildEvent{shard: p, entry: &e, err: err}
	}
}

// dispatch goes through the pending shards' tasks in order and starts
// each task's trees.
func (g *buildGrowth) dispatch(ctx context.Context) {
	for _, p := range g.pending {
		if !acquire(ctx, g.shardTokens) {
			return
		}
		for _, ts := range p.tasks {
			if ts.skip != "" {
				g.send(ctx, buildEvent{task: ts, shard: p, tree: -1, roots: true})
				continue
			}
			if !g.startTask(ctx, p, ts) {
				return
			}
		}
	}
}

// startTask retimes the task's reference, makes its roots and starts one
// goroutine per tree; it reports false when the build must stop.
func (g *buildGrowth) startTask(ctx context.Context, p *shardPlan, ts *taskState) bool {
	task := &g.tasks[ts.index]
	if !acquire(ctx, g.treeSlots) {
		return false
	}
	m := g.m
	start := time.Now()
	err := retime(ctx, m.executor(g.cfg.Executor, &m.b.CheckRuns), task, g.copts, &ts.check)
	var roots []string
	if err == nil {
		tcfg := g.cfg
		tcfg.setLimits(ts.check.RunOptions(g.copts.Limits))
		tcfg.Executor = m.executor(g.cfg.Executor, &m.b.RootRuns)
		roots, err = taskRoots(ctx, task, tcfg, g.opts)
	}
	m.addSeconds(&m.b.RootsSeconds, time.Since(start))
	<-g.treeSlots
	if err != nil {
		g.send(ctx, buildEvent{task: ts, shard: p, err: fmt.Errorf("task %q: %w", task.ID, err)})
		return false
	}
	tcfg := g.cfg
	tcfg.setLimits(ts.check.RunOptions(g.copts.Limits))
	// The task's trees share one cache: identical programs run once.
	ts.cache = NewCachedExecutor(m.executor(g.cfg.Executor, &m.b.TreeRuns))
	tcfg.Executor = ts.cache
	ts.trees = make([]*corpus.Tree, len(roots))
	ts.left = len(roots)
	if len(roots) == 0 {
		ts.skip = "no root: the root maker found no program that loads and fails a test"
	}
	g.send(ctx, buildEvent{task: ts, shard: p, tree: -1, roots: true})
	for ri, root := range roots {
		if !acquire(ctx, g.treeSlots) {
			return false
		}
		g.wg.Go(func() {
			defer func() { <-g.treeSlots }()
			t, err := BuildTree(ctx, tcfg, task, ri, root)
			if err != nil {
				err = fmt.Errorf("task %q: %w", task.ID, err)
			}
			g.send(ctx, buildEvent{task: ts, shard: p, tree: ri, t: t, err: err})
		})
	}
	return true
}

// collect applies the events until the goroutines are done; the first
// error stops the growing. After it, only the writes of shards that were
// already complete are applied.
func (g *buildGrowth) collect(ctx context.Context, cancel context.CancelFunc) error {
	var firstErr error
	toWrite := len(g.pending)
	writesOpen := true
	closeWrites := func() {
		if writesOpen {
			close(g.writes)
			writesOpen = false
		}
	}
	for ev := range g.events {
		if ev.grown {
			closeWrites()
			continue
		}
		if ev.err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("build corpus: %w", ev.err)
				cancel()
			}
			continue
		}
		if ev.entry != nil { // a shard is written
			g.prog.ShardsDone++
			toWrite--
			if toWrite == 0 {
				closeWrites()
			}
			g.log.Debug("shard complete", "shard", ev.shard.index, "trees", ev.entry.Trees, "rows", ev.entry.Rows)
		} else if firstErr == nil {
			g.taskEvent(ev)
		}
		g.report()
	}
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("build corpus: %w", err)
	}
	return nil
}

// taskEvent applies a task's roots being known or one of its trees done.
func (g *buildGrowth) taskEvent(ev buildEvent) {
	ts, prog := ev.task, g.prog
	if ev.roots {
		estimate := g.opts.Roots
		if n := len(g.tasks[ts.index].Roots); n > 0 {
			estimate = min(n, g.opts.Roots)
		}
		prog.TreesTotal += len(ts.trees) - estimate
		if ts.skip != "" {
			prog.TasksSkipped++
		}
		if ts.left == 0 {
			taskDone(ts, ev.shard, g.writes, g.m)
		}
		return
	}
	ts.trees[ev.tree] = ev.t
	if ev.t.Root().Solved() && ts.skip == "" {
		// The root failed when it was checked or made, and passes
		// now: a flaky verdict. Such a root never enters a corpus.
		ts.skip = fmt.Sprintf("root %d passed every test when its tree was built (a flaky verdict)", ev.tree)
		prog.TasksSkipped++
	}
	ts.left--
	prog.TreesDone++
	prog.Nodes += int64(len(ev.t.Nodes))
	g.m.addTree(len(ev.t.Nodes))
	if ts.left == 0 {
		taskDone(ts, ev.shard, g.writes, g.m)
	}
}

// taskDone counts a finished task of shard p and queues p for writing when
// it was the last.
func taskDone(ts *taskState, p *shardPlan, writes chan<- *shardPlan, m *meter) {
	if ts.skip != "" {
		ts.trees = nil
	}
	if ts.cache != nil {
		m.addHits(ts.cache.Hits())
		ts.cache = nil
	}
	p.left--
	if p.left == 0 {
		writes <- p
	}
}

// taskRoots returns the roots of a task: its own, or made by RootsFunc
// under the task's time limit, at most opts.Roots.
func taskRoots(ctx context.Context, task *corpus.Task, cfg BuildConfig, opts BuildOptions) ([]string, error) {
	roots := task.Roots
	if len(roots) == 0 {
		if opts.RootsFunc == nil {
			return nil, fmt.Errorf("task has no roots and no root maker is configured")
		}
		exec := limitedExecutor{inner: NewCachedExecutor(cfg.Executor), opts: cfg.runOptions()}
		var err error
		roots, err = opts.RootsFunc(ctx, task, exec, opts.Roots, TaskSeed(opts.Seed, task.ID))
		if err != nil {
			return nil, fmt.Errorf("make roots: %w", err)
		}
	}
	if len(roots) > opts.Roots {
		roots = roots[:opts.Roots]
	}
	return roots, nil
}

// retime runs task's reference once more as its trees start and raises
// the task's limit when the reference's time now gives a higher one (it
// has become slower since the input checks, the machine busier): a build
// lasts long, and its checks all ran at its start.
func retime(ctx context.Context, exec corpus.Executor, task *corpus.Task, o CheckOptions, c *TaskCheck) error {
	if o.Limits.Fixed > 0 {
		return nil
	}
	measure := o.Limits.Measure()
	measure.Coverage = o.Coverage
	ex, err := corpus.RunWith(ctx, exec, task.Solution, task.Test, measure)
	if err != nil {
		return fmt.Errorf("time reference: %w", err)
	}
	if ref := o.Limits.Sample(ex); ex.Solved() && o.Limits.LimitOf(ref) > c.Limit {
		c.setReference(ref, o.Limits)
	}
	return nil
}

// limitedExecutor runs every program under one task's limits, without
// coverage; it lets a RootsFunc, which knows only Executor, run under the
// task's limit.
type limitedExecutor struct {
	inner corpus.Executor
	opts  corpus.RunOptions
}

func (e limitedExecutor) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	return corpus.RunWith(ctx, e.inner, program, tests, e.opts)
}
