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
	"sync"
)

// DefaultTasksPerShard is the number of consecutive tasks per shard file.
const DefaultTasksPerShard = 16

// RootsFunc makes up to max buggy roots for a task that ships none (e.g.
// mutate.Inject), deterministically from seed.
type RootsFunc func(ctx context.Context, task *Task, exec Executor, max int, seed uint64) ([]string, error)

// Progress is reported after each tree and each shard.
type Progress struct {
	TreesDone   int
	TreesTotal  int // an estimate until every task's roots are known
	Nodes       int64
	ShardsDone  int
	ShardsTotal int
	Skipped     int // shards already complete (resume)
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
	// Workers is the number of tasks built concurrently (default NumCPU).
	Workers int
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

type shardPlan struct {
	index       int
	first, end  int
	pendingTask int
	trees       [][]*Tree // per task, per root
}

type taskResult struct {
	shard, task int
	trees       []*Tree
	err         error
	treeNodes   int // > 0: a progress event for one finished tree
}

// BuildCorpus builds the exhaustive trees of tasks into Parquet shards in
// opts.Out with a manifest. Shards are fixed groups of consecutive tasks, so
// a resumed or re-sliced build writes the same rows. Shards are written to a
// temporary name and renamed when complete; the manifest is rewritten
// atomically after each. On error, the shards already complete stay listed
// and readable.
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
		RowsPerGroup: opts.RowsPerGroup}

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
	if old, err := ReadManifest(mpath); err == nil {
		if !opts.Resume {
			return nil, fmt.Errorf("%s: %w (use --resume, or a new folder)", mpath, ErrOutputExists)
		}
		cmp := old.Settings
		cmp.TasksSource = settings.TasksSource // the same tasks may be named by another path; the digest decides
		if cmp != settings {
			a, _ := json.Marshal(old.Settings)
			b, _ := json.Marshal(settings)
			return nil, fmt.Errorf("%s: %w: manifest %s, now %s", mpath, ErrSettingsMismatch, a, b)
		}
		man.Shards = old.Shards
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
	if err := writeManifest(opts.create, mpath, man); err != nil {
		return nil, fmt.Errorf("build corpus: %w", err)
	}
	skipped := len(plans) - len(pending)
	prog := Progress{ShardsTotal: len(plans), ShardsDone: skipped, Skipped: skipped}
	for _, p := range pending {
		for i := p.first; i < p.end; i++ {
			if n := len(tasks[i].Roots); n > 0 {
				prog.TreesTotal += min(n, opts.Roots)
			} else {
				prog.TreesTotal += opts.Roots
			}
		}
	}
	log.Info("corpus build", "out", opts.Out, "tasks", len(tasks), "shards", len(plans), "done", skipped,
		"k", opts.Config.K, "depth", opts.Config.D, "roots", opts.Roots, "workers", opts.Workers)
	if opts.Progress != nil {
		opts.Progress(prog)
	}
	if len(pending) == 0 {
		return man, nil
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	const shardsInFlight = 2
	tokens := make(chan struct{}, shardsInFlight)
	jobs := make(chan [2]int)
	results := make(chan taskResult)
	var wg sync.WaitGroup
	go func() { // feeder
		defer close(jobs)
		for si, p := range pending {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			for ti := p.first; ti < p.end; ti++ {
				select {
				case jobs <- [2]int{si, ti}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				trees, err := buildTask(ctx, &tasks[j[1]], opts, func(t *Tree) {
					select {
					case results <- taskResult{shard: j[0], task: j[1], treeNodes: len(t.Nodes)}:
					case <-ctx.Done():
					}
				})
				select {
				case results <- taskResult{shard: j[0], task: j[1], trees: trees, err: err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	for _, p := range pending {
		p.pendingTask = p.end - p.first
		p.trees = make([][]*Tree, p.end-p.first)
	}
	var firstErr error
	written := 0
	for r := range results {
		if firstErr != nil {
			continue
		}
		if r.treeNodes > 0 {
			prog.TreesDone++
			prog.Nodes += int64(r.treeNodes)
			if opts.Progress != nil {
				opts.Progress(prog)
			}
			continue
		}
		if r.err != nil {
			firstErr = fmt.Errorf("build corpus: task %q: %w", tasks[r.task].ID, r.err)
			cancel()
			continue
		}
		p := pending[r.shard]
		p.trees[r.task-p.first] = r.trees
		p.pendingTask--
		if n := len(tasks[r.task].Roots); n == 0 && len(r.trees) != opts.Roots {
			prog.TreesTotal += len(r.trees) - opts.Roots
		}
		if p.pendingTask == 0 {
			e, err := writeShard(opts, p, tasks)
			if err == nil {
				man.Shards = append(man.Shards, e)
				err = writeManifest(opts.create, mpath, man)
				if err == nil && opts.hook != nil {
					opts.hook("manifest", p.index)
				}
			}
			if err != nil {
				firstErr = fmt.Errorf("build corpus: shard %d: %w", p.index, err)
				cancel()
				continue
			}
			p.trees = nil
			written++
			prog.ShardsDone++
			<-tokens
			log.Debug("shard complete", "shard", p.index, "trees", e.Trees, "rows", e.Rows, "bytes", e.Bytes)
		}
		if opts.Progress != nil {
			opts.Progress(prog)
		}
	}
	if firstErr != nil {
		return man, firstErr
	}
	if err := ctx.Err(); err != nil {
		return man, fmt.Errorf("build corpus: %w", err)
	}
	return man, nil
}

// buildTask makes the roots of one task and builds each root's tree; the
// task's trees share one execution cache.
func buildTask(ctx context.Context, task *Task, opts BuildOptions, done func(*Tree)) ([]*Tree, error) {
	cfg := opts.Config
	cache := NewCachedExecutor(cfg.Executor)
	cfg.Executor = cache
	roots := task.Roots
	if len(roots) == 0 {
		if opts.RootsFunc == nil {
			return nil, fmt.Errorf("task has no roots and no root maker is configured")
		}
		var err error
		roots, err = opts.RootsFunc(ctx, task, cache, opts.Roots, TaskSeed(opts.Seed, task.ID))
		if err != nil {
			return nil, fmt.Errorf("make roots: %w", err)
		}
	}
	if len(roots) > opts.Roots {
		roots = roots[:opts.Roots]
	}
	trees := make([]*Tree, 0, len(roots))
	for i, root := range roots {
		t, err := BuildTree(ctx, cfg, task, i, root)
		if err != nil {
			return nil, err
		}
		trees = append(trees, t)
		done(t)
	}
	return trees, nil
}

// TaskSeed derives a task's seed from the build seed and the task id, so a
// task's roots do not depend on which other tasks are built.
func TaskSeed(seed uint64, taskID string) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h := sha256.Sum256(append(b[:], taskID...))
	return binary.LittleEndian.Uint64(h[:8])
}

func writeShard(opts BuildOptions, p *shardPlan, tasks []Task) (ShardEntry, error) {
	path := filepath.Join(opts.Out, ShardFileName(p.index))
	e := ShardEntry{Index: p.index, File: ShardFileName(p.index), FirstTask: p.first, EndTask: p.end}
	var before func()
	if opts.hook != nil {
		before = func() { opts.hook("tmp", p.index) }
	}
	err := writeAtomic(opts.create, path, func(w io.Writer) error {
		sw := NewShardWriter(w, WriterOptions{RowsPerGroup: opts.RowsPerGroup,
			Metadata: map[string]string{"triage.shard": fmt.Sprint(p.index),
				"triage.tasks": fmt.Sprintf("%d-%d", p.first, p.end)}})
		for _, trees := range p.trees {
			for ri, t := range trees {
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
		return e, err
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
	return e, nil
}

// adoptShard checks a complete shard file that the manifest does not list
// and describes it.
func adoptShard(path string, p *shardPlan, info ShardInfo) (ShardEntry, error) {
	e := ShardEntry{Index: p.index, File: ShardFileName(p.index), FirstTask: p.first, EndTask: p.end,
		Rows: info.Rows, Bytes: info.Bytes, UncompressedBytes: info.UncompressedBytes}
	if info.Schema != SchemaVersion {
		return e, fmt.Errorf("schema %q, want %q", info.Schema, SchemaVersion)
	}
	err := ScanRows(path, func(rows []NodeRow) error {
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
