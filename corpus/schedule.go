package corpus

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
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
	trees []*Tree
	left  int // trees not yet built
	skip  string
}

func (ts *taskState) record(tasks []Task) TaskRecord {
	return TaskRecord{Index: ts.index, TaskID: tasks[ts.index].ID, ReferenceMS: ts.check.ReferenceMS,
		LimitMS: float64(ts.check.Limit) / float64(time.Millisecond), Trees: len(ts.trees), Skipped: ts.skip}
}

// buildEvent is what the build's goroutines tell the collector.
type buildEvent struct {
	task  *taskState
	shard *shardPlan
	tree  int   // root index of a finished tree, or -1
	t     *Tree // the tree
	roots bool  // the task's roots are known
	entry *ShardEntry
	err   error
}

// grow builds the trees of the pending shards and writes each shard when
// its last tree is done. A dispatcher goes through the tasks in order, makes
// each task's roots and starts its trees, at most TreesInFlight at once; a
// writer goroutine writes complete shards; this goroutine collects.
func grow(ctx context.Context, cfg BuildConfig, copts CheckOptions, opts BuildOptions, tasks []Task, pending []*shardPlan,
	w *shardWriter, m *meter, prog *Progress, report func(), log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan buildEvent)
	send := func(ev buildEvent) {
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	}
	treeSlots := make(chan struct{}, opts.TreesInFlight)
	// At most shardsOpen shards hold trees in memory at once.
	const shardsOpen = 3
	shardTokens := make(chan struct{}, shardsOpen)
	writes := make(chan *shardPlan, len(pending))
	var wg sync.WaitGroup

	wg.Go(func() { // writer
		for {
			select {
			case p, ok := <-writes:
				if !ok {
					return
				}
				e, err := w.write(p)
				<-shardTokens
				send(buildEvent{shard: p, entry: &e, err: err})
			case <-ctx.Done():
				return
			}
		}
	})

	wg.Go(func() { // dispatcher
		acquire := func(c chan struct{}) bool {
			select {
			case c <- struct{}{}:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, p := range pending {
			if !acquire(shardTokens) {
				return
			}
			for _, ts := range p.tasks {
				if ts.skip != "" {
					send(buildEvent{task: ts, shard: p, tree: -1, roots: true})
					continue
				}
				task := &tasks[ts.index]
				if !acquire(treeSlots) {
					return
				}
				start := time.Now()
				err := retime(ctx, m.executor(cfg.Executor, &m.b.CheckRuns), task, copts, &ts.check)
				var roots []string
				if err == nil {
					tcfg := cfg
					tcfg.Timeout, tcfg.CPULimit = split(copts.Limits.Run(ts.check.Limit))
					tcfg.Executor = m.executor(cfg.Executor, &m.b.RootRuns)
					roots, err = taskRoots(ctx, task, tcfg, opts)
				}
				m.addSeconds(&m.b.RootsSeconds, time.Since(start))
				<-treeSlots
				if err != nil {
					send(buildEvent{task: ts, shard: p, err: fmt.Errorf("task %q: %w", task.ID, err)})
					return
				}
				tcfg := cfg
				tcfg.Timeout, tcfg.CPULimit = split(copts.Limits.Run(ts.check.Limit))
				// The task's trees share one cache: identical programs run once.
				ts.cache = NewCachedExecutor(m.executor(cfg.Executor, &m.b.TreeRuns))
				tcfg.Executor = ts.cache
				ts.trees = make([]*Tree, len(roots))
				ts.left = len(roots)
				if len(roots) == 0 {
					ts.skip = "no root: the root maker found no program that loads and fails a test"
				}
				send(buildEvent{task: ts, shard: p, tree: -1, roots: true})
				for ri, root := range roots {
					if !acquire(treeSlots) {
						return
					}
					wg.Go(func() {
						defer func() { <-treeSlots }()
						t, err := BuildTree(ctx, tcfg, task, ri, root)
						if err != nil {
							err = fmt.Errorf("task %q: %w", task.ID, err)
						}
						send(buildEvent{task: ts, shard: p, tree: ri, t: t, err: err})
					})
				}
			}
		}
	})
	go func() { wg.Wait(); close(events) }()

	var firstErr error
	toWrite := len(pending)
	for ev := range events {
		if firstErr != nil {
			continue
		}
		if ev.err != nil {
			firstErr = fmt.Errorf("build corpus: %w", ev.err)
			cancel()
			continue
		}
		ts := ev.task
		switch {
		case ev.entry != nil: // a shard is written
			prog.ShardsDone++
			toWrite--
			if toWrite == 0 {
				close(writes)
			}
			log.Debug("shard complete", "shard", ev.shard.index, "trees", ev.entry.Trees, "rows", ev.entry.Rows)
		case ev.roots:
			estimate := opts.Roots
			if n := len(tasks[ts.index].Roots); n > 0 {
				estimate = min(n, opts.Roots)
			}
			prog.TreesTotal += len(ts.trees) - estimate
			if ts.skip != "" {
				prog.TasksSkipped++
			}
			if ts.left == 0 {
				taskDone(ts, ev.shard, writes, m)
			}
		default: // a tree is done
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
			m.addTree(len(ev.t.Nodes))
			if ts.left == 0 {
				taskDone(ts, ev.shard, writes, m)
			}
		}
		report()
	}
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("build corpus: %w", err)
	}
	return nil
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
func taskRoots(ctx context.Context, task *Task, cfg BuildConfig, opts BuildOptions) ([]string, error) {
	roots := task.Roots
	if len(roots) == 0 {
		if opts.RootsFunc == nil {
			return nil, fmt.Errorf("task has no roots and no root maker is configured")
		}
		exec := limitedExecutor{inner: NewCachedExecutor(cfg.Executor), timeout: cfg.Timeout, cpu: cfg.CPULimit}
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
// the task's limit when the reference has become slower since the input
// checks (the machine got busier): a build lasts long, and its checks all
// ran at its start.
func retime(ctx context.Context, exec Executor, task *Task, o CheckOptions, c *TaskCheck) error {
	if o.Limits.Fixed > 0 {
		return nil
	}
	measure := o.Limits.Measure()
	measure.Coverage = o.Coverage
	ex, err := RunWith(ctx, exec, task.Solution, task.Test, measure)
	if err != nil {
		return fmt.Errorf("time reference: %w", err)
	}
	if ref := o.Limits.Reference(ex); ex.Solved() && ref > c.ReferenceMS {
		c.ReferenceMS = ref
		c.Limit = o.Limits.For(time.Duration(ref * float64(time.Millisecond)))
	}
	return nil
}

// limitedExecutor runs every program under one time limit, without
// coverage; it lets a RootsFunc, which knows only Executor, run under the
// task's limit.
type limitedExecutor struct {
	inner        Executor
	timeout, cpu time.Duration
}

func (e limitedExecutor) Run(ctx context.Context, program, tests string) (Execution, error) {
	return RunWith(ctx, e.inner, program, tests, RunOptions{Timeout: e.timeout, CPU: e.cpu})
}

// split returns o's wall-clock and CPU limits.
func split(o RunOptions) (wall, cpu time.Duration) { return o.Timeout, o.CPU }
