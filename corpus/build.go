package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// DefaultTasksPerShard is the number of consecutive tasks per shard file.
const DefaultTasksPerShard = 16

// RootsFunc makes up to max buggy roots for a task that ships none (e.g.
// mutate.Inject), deterministically from seed.
type RootsFunc func(ctx context.Context, task *Task, exec Executor, max int, seed uint64) ([]string, error)

// Progress is reported after the input checks, after each tree and after
// each shard.
type Progress struct {
	TasksChecked int // input checks done
	TasksToCheck int
	TasksSkipped int // tasks left out (failed checks, no root)
	TreesDone    int
	TreesTotal   int // an estimate until every task's roots are known
	Nodes        int64
	ShardsDone   int
	ShardsTotal  int
	Skipped      int // shards already complete (resume)
}

// BuildOptions configures BuildCorpus.
type BuildOptions struct {
	Config BuildConfig
	// Roots is the number of roots per task (task.Roots[:Roots], or made by
	// RootsFunc when the task has none).
	Roots     int
	RootsFunc RootsFunc
	Seed      uint64
	Out       string
	// Workers is the number of runs the executor takes at once (its sandbox
	// workers; default NumCPU). Idle time is reported against it.
	Workers int
	// TreesInFlight bounds the trees grown at once (default 4 × Workers):
	// enough that one tree waiting on a long run leaves every worker busy.
	TreesInFlight int
	// Limits give each task its time limit from its reference's run time
	// (zero value: DefaultTimeLimits).
	Limits TimeLimits
	// ReferenceRuns is how often each reference is run and timed (default 3).
	ReferenceRuns int
	// Strict refuses a task list in which a task fails the input checks
	// (ErrInvalidTasks) instead of leaving those tasks out.
	Strict bool
	// ExecutorSettings name the executor's settings that change verdicts
	// (memory, process and output limits, interpreter); they are recorded,
	// and a resumed build must have the same.
	ExecutorSettings map[string]string
	// TasksPerShard groups consecutive tasks into one shard file.
	TasksPerShard int
	// ShardIndex/ShardCount select every shard s with s % ShardCount ==
	// ShardIndex, so n machines can build one corpus.
	ShardIndex, ShardCount int
	// Resume skips shards that are already complete.
	Resume       bool
	RowsPerGroup int64
	// TasksSource names the tasks in the manifest (a path or "bundled").
	TasksSource string
	// Progress, if set, is called from the build's goroutine.
	Progress func(Progress)
	// Logger receives structured progress lines (default slog.Default()).
	Logger *slog.Logger

	create createFunc                // file creation; tests inject failures
	hook   func(event string, s int) // test hook: "tmp", "renamed", "manifest"
}

// DefaultReferenceRuns is how often a reference is timed by default.
const DefaultReferenceRuns = 3

// ErrInvalidTasks is returned by a Strict build when some task fails the
// input checks.
var ErrInvalidTasks = errors.New("tasks fail the input checks")

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

// BuildCorpus builds the exhaustive trees of tasks into Parquet shards in
// opts.Out with a manifest. Every task first passes the input checks
// (CheckTask: its reference, timed, passes; its test file collects tests;
// its roots load and fail); a task that fails them is left out with its
// reason in the manifest, or, with Strict, the build is refused before any
// tree. Each task's time limit comes from its reference (opts.Limits).
// Trees grow concurrently, several per executor slot, and shards are
// written off the critical path.
//
// Shards are fixed groups of consecutive tasks, and trees do not depend on
// the order in which runs finish, so a resumed or re-sliced build writes the
// same rows. Shards are written to a temporary name and renamed when
// complete; the manifest is rewritten atomically after each, with the time
// breakdown so far. On error, the shards already complete stay listed and
// readable.
func BuildCorpus(ctx context.Context, tasks []Task, opts BuildOptions) (*Manifest, error) {
	if err := opts.Config.validate(); err != nil {
		return nil, err
	}
	if opts.Roots < 1 {
		return nil, fmt.Errorf("build corpus: roots must be ≥ 1, got %d", opts.Roots)
	}
	if opts.TasksPerShard <= 0 {
		opts.TasksPerShard = DefaultTasksPerShard
	}
	if opts.ShardCount <= 0 {
		opts.ShardCount = 1
	}
	if opts.ShardIndex < 0 || opts.ShardIndex >= opts.ShardCount {
		return nil, fmt.Errorf("build corpus: shard %d/%d out of range", opts.ShardIndex, opts.ShardCount)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.TreesInFlight <= 0 {
		opts.TreesInFlight = 4 * opts.Workers
	}
	if opts.Limits == (TimeLimits{}) {
		opts.Limits = DefaultTimeLimits()
	}
	if err := opts.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("build corpus: %w", err)
	}
	if opts.ReferenceRuns <= 0 {
		opts.ReferenceRuns = DefaultReferenceRuns
	}
	if opts.RowsPerGroup <= 0 {
		opts.RowsPerGroup = DefaultRowsPerGroup
	}
	if opts.create == nil {
		opts.create = osCreate
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Out == "" {
		return nil, fmt.Errorf("build corpus: no output folder")
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, fmt.Errorf("build corpus: %w", err)
	}
	settings := BuildSettings{K: opts.Config.K, D: opts.Config.D, Roots: opts.Roots,
		Proposer: opts.Config.ProposerName, Model: opts.Config.Model, Seed: opts.Seed,
		TasksSource: opts.TasksSource, TasksSHA256: tasksDigest(tasks), NumTasks: len(tasks),
		TasksPerShard: opts.TasksPerShard, ShardIndex: opts.ShardIndex, ShardCount: opts.ShardCount,
		RowsPerGroup: opts.RowsPerGroup, Limits: opts.Limits, ReferenceRuns: opts.ReferenceRuns,
		Coverage: usesCoverage(opts.Config.Proposer), Executor: opts.ExecutorSettings}

	// Plan: the shards this slice owns.
	var plans []*shardPlan
	for s := 0; s*opts.TasksPerShard < len(tasks); s++ {
		if s%opts.ShardCount != opts.ShardIndex {
			continue
		}
		end := min((s+1)*opts.TasksPerShard, len(tasks))
		plans = append(plans, &shardPlan{index: s, first: s * opts.TasksPerShard, end: end})
	}

	mpath := filepath.Join(opts.Out, ManifestName(opts.ShardIndex, opts.ShardCount))
	man := &Manifest{Schema: SchemaVersion, Settings: settings, Versions: buildVersions(), Planned: len(plans)}
	var before *Breakdown // the time of earlier sessions
	if old, err := ReadManifest(mpath); err == nil {
		if !opts.Resume {
			return nil, fmt.Errorf("%s: %w (use --resume, or a new folder)", mpath, ErrOutputExists)
		}
		if diff := DiffSettings(old.Settings, settings); len(diff) > 0 {
			return nil, fmt.Errorf("%s: %w: %s", mpath, ErrSettingsMismatch, strings.Join(diff, "; "))
		}
		man.Shards = old.Shards
		before = old.Time
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	} else if !opts.Resume {
		if files, _ := ListShards(opts.Out); len(files) > 0 {
			owned := map[string]bool{}
			for _, p := range plans {
				owned[ShardFileName(p.index)] = true
			}
			for _, f := range files {
				if owned[filepath.Base(f)] {
					return nil, fmt.Errorf("%s: %w (shard files without a manifest; use --resume)", opts.Out, ErrOutputExists)
				}
			}
		}
	}

	// Reconcile planned shards with the folder.
	listed := map[int]ShardEntry{}
	for _, s := range man.Shards {
		listed[s.Index] = s
	}
	man.Shards = nil
	var pending []*shardPlan
	for _, p := range plans {
		path := filepath.Join(opts.Out, ShardFileName(p.index))
		_ = os.Remove(filepath.Join(opts.Out, "."+ShardFileName(p.index)+".tmp"))
		info, err := InspectShard(path)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				log.Warn("removing unreadable shard", "file", path, "err", err)
				_ = os.Remove(path)
			}
			pending = append(pending, p)
			continue
		}
		if e, ok := listed[p.index]; ok && e.Rows == info.Rows && e.FirstTask == p.first && e.EndTask == p.end {
			man.Shards = append(man.Shards, e)
			continue
		}
		// Renamed but not yet listed (a crash between rename and manifest):
		// a renamed file is complete; adopt it after checking it reads.
		e, err := adoptShard(path, p, info)
		if err != nil {
			log.Warn("removing unreadable shard", "file", path, "err", err)
			_ = os.Remove(path)
			pending = append(pending, p)
			continue
		}
		man.Shards = append(man.Shards, e)
	}

	m := newMeter(opts.Config.Executor, opts.Workers)
	m.before = before
	cfg := opts.Config
	cfg.Proposer = meteredProposer{inner: cfg.Proposer, m: m}
	skipped := len(plans) - len(pending)
	prog := Progress{ShardsTotal: len(plans), ShardsDone: skipped, Skipped: skipped}
	for _, p := range pending {
		prog.TasksToCheck += p.end - p.first
		for i := p.first; i < p.end; i++ {
			if n := len(tasks[i].Roots); n > 0 {
				prog.TreesTotal += min(n, opts.Roots)
			} else {
				prog.TreesTotal += opts.Roots
			}
		}
	}
	log.Info("corpus build", "out", opts.Out, "tasks", len(tasks), "shards", len(plans), "done", skipped,
		"k", opts.Config.K, "depth", opts.Config.D, "roots", opts.Roots, "workers", opts.Workers,
		"trees_in_flight", opts.TreesInFlight)
	report := func() {
		if opts.Progress != nil {
			opts.Progress(prog)
		}
	}
	report()

	// Input checks of every pending task, before any tree.
	checkStart := time.Now()
	var toCheck []int
	for _, p := range pending {
		for i := p.first; i < p.end; i++ {
			toCheck = append(toCheck, i)
		}
	}
	checks := make([]TaskCheck, len(toCheck))
	copts := CheckOptions{ReferenceRuns: opts.ReferenceRuns, Limits: opts.Limits, Coverage: settings.Coverage}
	var checkMu sync.Mutex
	err := ForEach(ctx, len(toCheck), 2*opts.Workers, func(j int) error {
		c, err := CheckTask(ctx, m.executor(cfg.Executor, &m.b.CheckRuns), &tasks[toCheck[j]], copts)
		if err != nil {
			return err
		}
		checks[j] = c
		checkMu.Lock()
		prog.TasksChecked++
		if opts.Progress != nil && prog.TasksChecked%16 == 0 {
			opts.Progress(prog)
		}
		checkMu.Unlock()
		return nil
	})
	m.addSeconds(&m.b.ValidateSeconds, time.Since(checkStart))
	if err != nil {
		return nil, fmt.Errorf("build corpus: input checks: %w", err)
	}
	var invalid []string
	byTask := map[int]*taskState{}
	for j, i := range toCheck {
		ts := &taskState{index: i, check: checks[j]}
		if !checks[j].Valid() {
			ts.skip = checks[j].Reason()
			invalid = append(invalid, tasks[i].ID+": "+ts.skip)
		}
		byTask[i] = ts
	}
	if len(invalid) > 0 {
		log.Warn("tasks fail the input checks", "tasks", len(invalid), "strict", opts.Strict)
		if opts.Strict {
			return nil, fmt.Errorf("build corpus: %w (%d): %s", ErrInvalidTasks, len(invalid), strings.Join(invalid, "; "))
		}
	}
	for _, p := range pending {
		for i := p.first; i < p.end; i++ {
			p.tasks = append(p.tasks, byTask[i])
		}
		p.left = len(p.tasks)
	}
	report()
	w := &shardWriter{opts: opts, tasks: tasks, man: man, mpath: mpath, m: m}
	if err := w.writeManifest(); err != nil {
		return nil, fmt.Errorf("build corpus: %w", err)
	}
	if len(pending) == 0 {
		return man, nil
	}
	err = grow(ctx, cfg, copts, opts, tasks, pending, w, m, &prog, report, log)
	if werr := w.writeManifest(); err == nil && werr != nil {
		err = fmt.Errorf("build corpus: %w", werr)
	}
	return man, err
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
					tcfg.Timeout = ts.check.Limit
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
				tcfg.Timeout = ts.check.Limit
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
		exec := limitedExecutor{inner: NewCachedExecutor(cfg.Executor), timeout: cfg.Timeout}
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
	ex, err := RunWith(ctx, exec, task.Solution, task.Test, RunOptions{Timeout: o.Limits.Measure(), Coverage: o.Coverage})
	if err != nil {
		return fmt.Errorf("time reference: %w", err)
	}
	if ex.Solved() && ex.DurationMS > c.ReferenceMS {
		c.ReferenceMS = ex.DurationMS
		c.Limit = o.Limits.For(time.Duration(ex.DurationMS * float64(time.Millisecond)))
	}
	return nil
}

// limitedExecutor runs every program under one time limit, without
// coverage; it lets a RootsFunc, which knows only Executor, run under the
// task's limit.
type limitedExecutor struct {
	inner   Executor
	timeout time.Duration
}

func (e limitedExecutor) Run(ctx context.Context, program, tests string) (Execution, error) {
	return RunWith(ctx, e.inner, program, tests, RunOptions{Timeout: e.timeout})
}

// TaskSeed derives a task's seed from the build seed and the task id, so a
// task's roots do not depend on which other tasks are built.
func TaskSeed(seed uint64, taskID string) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h := sha256.Sum256(append(b[:], taskID...))
	return binary.LittleEndian.Uint64(h[:8])
}

// shardWriter writes shards and the manifest; one goroutine at a time
// uses it.
type shardWriter struct {
	opts  BuildOptions
	tasks []Task
	man   *Manifest
	mpath string
	m     *meter
}

// taskRecordsKey is the shard metadata key of the shard's TaskRecords, so
// a shard adopted after a crash keeps its tasks' limits and skip reasons.
const taskRecordsKey = "triage.task_records"

// write writes shard p, lists it in the manifest and rewrites the manifest.
func (w *shardWriter) write(p *shardPlan) (ShardEntry, error) {
	start := time.Now()
	defer func() { w.m.addSeconds(&w.m.b.WriteSeconds, time.Since(start)) }()
	opts := w.opts
	path := filepath.Join(opts.Out, ShardFileName(p.index))
	e := ShardEntry{Index: p.index, File: ShardFileName(p.index), FirstTask: p.first, EndTask: p.end}
	for _, ts := range p.tasks {
		e.Tasks = append(e.Tasks, ts.record(w.tasks))
	}
	recs, err := json.Marshal(e.Tasks)
	if err != nil {
		return e, fmt.Errorf("encode task records: %w", err)
	}
	var before func()
	if opts.hook != nil {
		before = func() { opts.hook("tmp", p.index) }
	}
	err = writeAtomic(opts.create, path, func(out io.Writer) error {
		sw := NewShardWriter(out, WriterOptions{RowsPerGroup: opts.RowsPerGroup,
			Metadata: map[string]string{"triage.shard": fmt.Sprint(p.index),
				"triage.tasks": fmt.Sprintf("%d-%d", p.first, p.end), taskRecordsKey: string(recs)}})
		for _, ts := range p.tasks {
			for ri, t := range ts.trees {
				if err := sw.WriteTree(t, ri); err != nil {
					return err
				}
			}
		}
		if err := sw.Close(); err != nil {
			return err
		}
		e.Trees, e.Rows, e.TextBytes = sw.Trees(), sw.Rows(), sw.TextBytes()
		return nil
	}, before)
	if err != nil {
		return e, fmt.Errorf("shard %d: %w", p.index, err)
	}
	if opts.hook != nil {
		opts.hook("renamed", p.index)
	}
	info, err := InspectShard(path)
	if err != nil {
		return e, fmt.Errorf("reopen written shard: %w", err)
	}
	if info.Rows != e.Rows {
		return e, fmt.Errorf("shard %s: footer says %d rows, wrote %d", path, info.Rows, e.Rows)
	}
	e.Bytes, e.UncompressedBytes = info.Bytes, info.UncompressedBytes
	for _, ts := range p.tasks {
		ts.trees = nil // written: free the memory
	}
	w.man.Shards = append(w.man.Shards, e)
	if err := w.writeManifest(); err != nil {
		return e, fmt.Errorf("shard %d: %w", p.index, err)
	}
	if opts.hook != nil {
		opts.hook("manifest", p.index)
	}
	return e, nil
}

// writeManifest rewrites the manifest with the time breakdown so far.
func (w *shardWriter) writeManifest() error {
	w.man.LastSession = w.m.snapshot()
	w.man.Time = w.m.total()
	return writeManifest(w.opts.create, w.mpath, w.man)
}

// adoptShard checks a complete shard file that the manifest does not list
// and describes it.
func adoptShard(path string, p *shardPlan, info ShardInfo) (ShardEntry, error) {
	e := ShardEntry{Index: p.index, File: ShardFileName(p.index), FirstTask: p.first, EndTask: p.end,
		Rows: info.Rows, Bytes: info.Bytes, UncompressedBytes: info.UncompressedBytes}
	if info.Schema != SchemaVersion {
		return e, fmt.Errorf("schema %q, want %q", info.Schema, SchemaVersion)
	}
	pf, f, err := openShard(path)
	if err != nil {
		return e, err
	}
	recs, ok := pf.Lookup(taskRecordsKey)
	f.Close()
	if ok {
		if err := json.Unmarshal([]byte(recs), &e.Tasks); err != nil {
			return e, fmt.Errorf("shard %s: task records: %w", path, err)
		}
	}
	err = ScanRows(path, func(rows []NodeRow) error {
		for i := range rows {
			if rows[i].NodeID == 0 {
				e.Trees++
			}
			e.TextBytes += rowTextBytes(&rows[i])
		}
		return nil
	})
	return e, err
}

// tasksDigest hashes the task list (ids, tests, solutions, roots, splits) so
// a resumed build can tell that it was given the same tasks.
func tasksDigest(tasks []Task) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for i := range tasks {
		_ = enc.Encode(&tasks[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}
