package build

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"triage/corpus"
	"triage/corpus/limits"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// DefaultTasksPerShard is the number of consecutive tasks per shard file.
const DefaultTasksPerShard = 16

// RootsFunc makes up to max buggy roots for a task that ships none (e.g.
// mutate.Inject), deterministically from seed.
type RootsFunc func(ctx context.Context, task *corpus.Task, exec corpus.Executor, max int, seed uint64) ([]string, error)

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
	Limits limits.TimeLimits
	// ReferenceRuns is how often each reference is run and timed (default 3).
	ReferenceRuns int
	// Strict refuses a task list in which a task fails the input checks
	// (ErrInvalidTasks) instead of leaving those tasks out.
	Strict bool
	// ExecutorSettings name the executor's settings that change verdicts
	// (memory, process and output limits, interpreter); they are recorded,
	// and a resumed build must have the same.
	ExecutorSettings map[string]string
	// Protections name the executor's protections in force in this session
	// (the sandbox's, e.g. without cgroup limits under --sandbox-limits
	// warn): recorded in the manifest for the reader, not compared on
	// resume (a machine may gain or lose one between sessions).
	Protections []string
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
	// Progress, if set, is called after each step; calls never overlap.
	Progress func(Progress)
	// Logger receives structured progress lines (default slog.Default()).
	Logger *slog.Logger

	create shard.CreateFunc          // file creation; tests inject failures
	hook   func(event string, s int) // test hook: "tmp", "renamed", "manifest"
}

// Validate checks o as a caller filled it (Out, the counts, Workers, the
// proposer's name) and resolves Workers (0: one per CPU). A bad value is
// bad input naming its field (Invalid).
func (o *BuildOptions) Validate() error {
	if o.Out == "" {
		return corpus.Invalid("{Out} is required")
	}
	if o.Config.K < 1 || o.Config.D < 1 || o.Roots < 1 || o.TasksPerShard < 1 || o.ReferenceRuns < 1 {
		return corpus.Invalid("{Config.K}, {Config.D}, {Roots}, {TasksPerShard} and {ReferenceRuns} must be ≥ 1")
	}
	var err error
	if o.Workers, err = corpus.Workers(o.Workers); err != nil {
		return err
	}
	if p := o.Config.ProposerName; p != "mutate" && p != "openai" {
		return corpus.Invalid("{Config.ProposerName} %q: want mutate or openai", p)
	}
	return nil
}

// DefaultReferenceRuns is how often a reference is timed by default.
const DefaultReferenceRuns = 3

// ErrInvalidTasks is returned by a Strict build when some task fails the
// input checks. It is bad input (an InputError).
var ErrInvalidTasks error = &corpus.InputError{Err: errors.New("tasks fail the input checks")}

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
func BuildCorpus(ctx context.Context, tasks []corpus.Task, opts BuildOptions) (*manifest.Manifest, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	log := opts.Logger
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, fmt.Errorf("build corpus: %w", err)
	}
	settings := opts.settings(tasks)
	mpath := filepath.Join(opts.Out, manifest.ManifestName(opts.ShardIndex, opts.ShardCount))
	man, before, pending, err := openBuild(opts, settings, len(tasks), mpath)
	if err != nil {
		return nil, err
	}
	man.Protections = opts.Protections

	m := newMeter(opts.Config.Executor, opts.Workers)
	m.before = before
	cfg := opts.Config
	cfg.Proposer = meteredProposer{inner: cfg.Proposer, m: m}
	prog := plannedProgress(man.Planned, pending, tasks, opts.Roots)
	log.Info("corpus build", "out", opts.Out, "tasks", len(tasks), "shards", man.Planned, "done", prog.Skipped,
		"k", opts.Config.K, "depth", opts.Config.D, "roots", opts.Roots, "workers", opts.Workers,
		"trees_in_flight", opts.TreesInFlight)
	var progMu sync.Mutex // the input checks report from several goroutines
	report := func() {
		if opts.Progress != nil {
			progMu.Lock()
			opts.Progress(prog)
			progMu.Unlock()
		}
	}
	report()

	copts := CheckOptions{ReferenceRuns: opts.ReferenceRuns, Limits: opts.Limits, Coverage: settings.Coverage}
	start := time.Now()
	invalid, err := checkPending(ctx, m.executor(cfg.Executor, &m.b.CheckRuns), tasks, pending, copts, 2*opts.Workers, func() {
		progMu.Lock()
		prog.TasksChecked++
		n := prog.TasksChecked
		progMu.Unlock()
		if n%16 == 0 {
			report()
		}
	})
	m.addSeconds(&m.b.ValidateSeconds, time.Since(start))
	if err != nil {
		return nil, fmt.Errorf("build corpus: input checks: %w", err)
	}
	if len(invalid) > 0 {
		log.Warn("tasks fail the input checks", "tasks", len(invalid), "strict", opts.Strict)
		if opts.Strict {
			return nil, fmt.Errorf("build corpus: %w (%d): %s", ErrInvalidTasks, len(invalid), strings.Join(invalid, "; "))
		}
	}
	report()
	w := &shardWriter{opts: opts, tasks: tasks, man: man, mpath: mpath, m: m}
	if err := w.WriteManifest(); err != nil {
		return nil, fmt.Errorf("build corpus: %w", err)
	}
	if len(pending) == 0 {
		return man, nil
	}
	err = grow(ctx, &buildGrowth{cfg: cfg, copts: copts, opts: opts, tasks: tasks, pending: pending,
		w: w, m: m, prog: &prog, report: report, log: log})
	if werr := w.WriteManifest(); err == nil && werr != nil {
		err = fmt.Errorf("build corpus: %w", werr)
	}
	return man, err
}

// settings are the build settings of opts over tasks, as the manifest
// records them.
func (opts *BuildOptions) settings(tasks []corpus.Task) manifest.BuildSettings {
	return manifest.BuildSettings{K: opts.Config.K, D: opts.Config.D, Roots: opts.Roots,
		Proposer: opts.Config.ProposerName, Model: opts.Config.Model, Seed: opts.Seed,
		TasksSource: opts.TasksSource, TasksSHA256: tasksDigest(tasks), NumTasks: len(tasks),
		TasksPerShard: opts.TasksPerShard, ShardIndex: opts.ShardIndex, ShardCount: opts.ShardCount,
		RowsPerGroup: opts.RowsPerGroup, Limits: opts.Limits, ReferenceRuns: opts.ReferenceRuns,
		Coverage: corpus.UsesCoverage(opts.Config.Proposer), Executor: opts.ExecutorSettings}
}

// plannedProgress is a build's progress before it starts: planned shards,
// those already done (the ones not pending), and the tasks to check and
// trees to grow (roots per task, or fewer where a task ships fewer) of the
// pending shards.
func plannedProgress(planned int, pending []*shardPlan, tasks []corpus.Task, roots int) Progress {
	skipped := planned - len(pending)
	prog := Progress{ShardsTotal: planned, ShardsDone: skipped, Skipped: skipped}
	for _, p := range pending {
		prog.TasksToCheck += p.end - p.first
		for i := p.first; i < p.end; i++ {
			if n := len(tasks[i].Roots); n > 0 {
				prog.TreesTotal += min(n, roots)
			} else {
				prog.TreesTotal += roots
			}
		}
	}
	return prog
}

// fill checks opts and fills in the defaults.
func (opts *BuildOptions) fill() error {
	if err := opts.Config.validate(); err != nil {
		return err
	}
	if opts.Roots < 1 {
		return fmt.Errorf("build corpus: roots must be ≥ 1, got %d", opts.Roots)
	}
	if opts.Out == "" {
		return fmt.Errorf("build corpus: no output folder")
	}
	if opts.TasksPerShard <= 0 {
		opts.TasksPerShard = DefaultTasksPerShard
	}
	if opts.ShardCount <= 0 {
		opts.ShardCount = 1
	}
	if opts.ShardIndex < 0 || opts.ShardIndex >= opts.ShardCount {
		return fmt.Errorf("build corpus: shard %d/%d out of range", opts.ShardIndex, opts.ShardCount)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.TreesInFlight <= 0 {
		opts.TreesInFlight = 4 * opts.Workers
	}
	if opts.Limits == (limits.TimeLimits{}) {
		opts.Limits = limits.DefaultTimeLimits()
	}
	if err := opts.Limits.Validate(); err != nil {
		return fmt.Errorf("build corpus: %w", err)
	}
	if opts.ReferenceRuns <= 0 {
		opts.ReferenceRuns = DefaultReferenceRuns
	}
	if opts.RowsPerGroup <= 0 {
		opts.RowsPerGroup = shard.DefaultRowsPerGroup
	}
	if opts.create == nil {
		opts.create = shard.CreateFile
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return nil
}

// openBuild plans the shards this slice owns, reads the manifest at mpath
// (refusing a build over another's, or a resume with other settings) and
// reconciles it with the shard files. It returns the manifest with the
// complete shards listed, the time of earlier sessions and the shards left
// to build.
func openBuild(opts BuildOptions, settings manifest.BuildSettings, numTasks int, mpath string) (*manifest.Manifest, *manifest.Breakdown, []*shardPlan, error) {
	var plans []*shardPlan
	for s := 0; s*opts.TasksPerShard < numTasks; s++ {
		if s%opts.ShardCount != opts.ShardIndex {
			continue
		}
		end := min((s+1)*opts.TasksPerShard, numTasks)
		plans = append(plans, &shardPlan{index: s, first: s * opts.TasksPerShard, end: end})
	}
	man := &manifest.Manifest{Schema: shard.SchemaVersion, Settings: settings, Versions: manifest.BuildVersions(), Planned: len(plans)}
	var before *manifest.Breakdown
	if old, err := manifest.ReadManifest(mpath); err == nil {
		if !opts.Resume {
			return nil, nil, nil, corpus.FieldErrorf("%s: %w (use {Resume}, or a new folder)", mpath, manifest.ErrOutputExists)
		}
		if diff := manifest.DiffSettings(old.Settings, settings); len(diff) > 0 {
			return nil, nil, nil, fmt.Errorf("%s: %w: %s", mpath, manifest.ErrSettingsMismatch, strings.Join(diff, "; "))
		}
		man.Shards = old.Shards
		before = old.Time
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil, err
	} else if !opts.Resume {
		if files, _ := shard.ListShards(opts.Out); len(files) > 0 {
			owned := map[string]bool{}
			for _, p := range plans {
				owned[manifest.ShardFileName(p.index)] = true
			}
			for _, f := range files {
				if owned[filepath.Base(f)] {
					return nil, nil, nil, corpus.FieldErrorf("%s: %w (shard files without a manifest; use {Resume})", opts.Out, manifest.ErrOutputExists)
				}
			}
		}
	}

	listed := map[int]manifest.ShardEntry{}
	for _, s := range man.Shards {
		listed[s.Index] = s
	}
	man.Shards = nil
	var pending []*shardPlan
	for _, p := range plans {
		path := filepath.Join(opts.Out, manifest.ShardFileName(p.index))
		_ = os.Remove(filepath.Join(opts.Out, "."+manifest.ShardFileName(p.index)+".tmp"))
		info, err := shard.InspectShard(path)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				opts.Logger.Warn("removing unreadable shard", "file", path, "err", err)
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
			opts.Logger.Warn("removing unreadable shard", "file", path, "err", err)
			_ = os.Remove(path)
			pending = append(pending, p)
			continue
		}
		man.Shards = append(man.Shards, e)
	}
	return man, before, pending, nil
}

// checkPending runs the input checks of every task of the pending shards,
// at most workers at once, and fills the shards' task states. It returns
// "id: reason" for each task that fails them.
func checkPending(ctx context.Context, exec corpus.Executor, tasks []corpus.Task, pending []*shardPlan, o CheckOptions, workers int, done func()) ([]string, error) {
	var all []*taskState
	for _, p := range pending {
		for i := p.first; i < p.end; i++ {
			ts := &taskState{index: i}
			p.tasks = append(p.tasks, ts)
			all = append(all, ts)
		}
		p.left = len(p.tasks)
	}
	err := corpus.ForEach(ctx, len(all), workers, func(j int) error {
		c, err := CheckTask(ctx, exec, &tasks[all[j].index], o)
		if err != nil {
			return err
		}
		all[j].check = c
		done()
		return nil
	})
	if err != nil {
		return nil, err
	}
	var invalid []string
	for _, ts := range all {
		if !ts.check.Valid() {
			ts.skip = ts.check.Reason()
			invalid = append(invalid, tasks[ts.index].ID+": "+ts.skip)
		}
	}
	return invalid, nil
}

// TaskSeed derives a task's seed from the build seed and the task id, so a
// task's roots do not depend on which other tasks are built.
func TaskSeed(seed uint64, taskID string) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h := sha256.Sum256(append(b[:], taskID...))
	return binary.LittleEndian.Uint64(h[:8])
}

// tasksDigest hashes the task list (ids, tests, solutions, roots, splits) so
// a resumed build can tell that it was given the same tasks. The source is
// a label, left out as the task file's name is: corpora built before tasks
// had one keep their digest.
func tasksDigest(tasks []corpus.Task) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for i := range tasks {
		t := tasks[i]
		t.Source = ""
		_ = enc.Encode(&t)
	}
	return hex.EncodeToString(h.Sum(nil))
}
