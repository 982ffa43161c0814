package live

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/schollz/progressbar/v3"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/limits"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/search/eval/report"
)

// AdaptiveLimits runs the input checks of corpus build on every task (the
// reference, timed, passes; the roots it ships load and fail) and sets each
// task's limit in into as corpus build does, so a looping edit costs a
// fraction of a second and a live search reproduces the corpus tree's
// verdicts. It returns the tasks that pass; the others are left out with a
// warning.
func AdaptiveLimits(ctx context.Context, exec corpus.Executor, tasks []corpus.Task, limits limits.TimeLimits, workers int, coverage bool, into map[string]corpus.RunOptions) ([]corpus.Task, error) {
	start := time.Now()
	checks, err := build.CheckTasks(ctx, exec, tasks, build.CheckOptions{ReferenceRuns: build.DefaultReferenceRuns,
		Limits: limits, Coverage: coverage}, workers, nil)
	if err != nil {
		return nil, fmt.Errorf("input checks: %w", err)
	}
	var kept []corpus.Task
	for i, c := range checks {
		if !c.Valid() {
			slog.Warn("task left out: it fails the input checks", "task", c.TaskID, "reason", c.Reason())
			continue
		}
		into[c.TaskID] = c.RunOptions(limits)
		kept = append(kept, tasks[i])
	}
	if len(kept) == 0 {
		return nil, corpus.BadInput("no task passes the input checks (see the warnings above)")
	}
	slog.Info("search: input checks and time limits", "tasks", len(kept), "left_out", len(tasks)-len(kept),
		"seconds", time.Since(start).Seconds())
	return kept, nil
}

// CheckOut refuses an output folder (the field Out) that already holds a
// corpus.
func CheckOut(out string) error {
	if _, err := os.Stat(out); err != nil {
		return nil
	}
	shards, err := shard.ListShards(out)
	if err != nil {
		return corpus.Invalid("{Out} %s: %v", out, err)
	}
	if len(shards) > 0 {
		return corpus.Invalid("{Out} %s already holds a corpus (%d shards): use a new folder", out, len(shards))
	}
	if _, err := os.Stat(out + "/" + manifest.ManifestName(0, 1)); err == nil {
		return corpus.Invalid("{Out} %s already holds a manifest: use a new folder", out)
	}
	return nil
}

// Progress shows the progress of a Run: a progress bar on a terminal, and one structured log
// line per finished search otherwise.
type Progress struct {
	bar   *progressbar.ProgressBar
	total int
	done  int
}

// NewProgress makes a Progress over total searches; tty: draw the bar on
// stderr.
func NewProgress(tty bool, total int) *Progress {
	p := &Progress{total: total}
	if tty {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription("searches"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		_ = p.bar.RenderBlank()
	}
	return p
}

// RootDone counts one finished search (Options.OnRoot).
func (p *Progress) RootDone(r RootResult) {
	p.done++
	if p.bar != nil {
		_ = p.bar.Add(1)
		return
	}
	slog.Info("search", "method", r.Method, "task", r.TaskID, "root", r.Root, "solved", r.Solved, "expansions", r.Expansions,
		"output_tokens", r.OutputTokens, "wall_s", fmt.Sprintf("%.1f", r.WallSeconds), "done", p.done, "of", p.total)
}

// Finish clears the bar.
func (p *Progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// WriteTrees writes the trees of finished searches in the corpus schema:
// one shard and a manifest in out, or in out/<method> for each method when
// several ran. roots is Options.Roots; numTasks the tasks searched.
func WriteTrees(out string, methods []Method, rep *Report, numTasks, roots int) error {
	byMethod := map[string][]*RootResult{}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.Error == "" && r.Tree != nil {
			byMethod[r.Method] = append(byMethod[r.Method], r)
		}
	}
	for _, run := range methods {
		dir := out
		if len(methods) > 1 {
			dir = filepath.Join(out, run.Name())
		}
		rs := byMethod[run.Name()]
		if len(rs) == 0 {
			slog.Warn("no finished search to write", "method", run.Name(), "out", dir)
			continue
		}
		if err := writeTreeCorpus(dir, rs, rep, numTasks, roots, !rep.Interrupted); err != nil {
			return err
		}
	}
	return nil
}

// writeTreeCorpus writes one method's trees as a one-shard corpus in dir.
func writeTreeCorpus(dir string, rs []*RootResult, rep *Report, numTasks, roots int, complete bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return corpus.FieldErrorf("{Out}: %w", err)
	}
	name := manifest.ShardFileName(0)
	path := filepath.Join(dir, name)
	entry := manifest.ShardEntry{Index: 0, File: name, FirstTask: 0, EndTask: numTasks}
	err := report.WriteFile(path, func(fh *os.File) error {
		sw := shard.NewShardWriter(fh, shard.WriterOptions{Metadata: map[string]string{"triage.search": rs[0].Method}})
		for _, r := range rs {
			if err := sw.WriteTree(r.Tree, r.RootIndex); err != nil {
				return err
			}
		}
		if err := sw.Close(); err != nil {
			return err
		}
		entry.Trees, entry.Rows, entry.TextBytes = sw.Trees(), sw.Rows(), sw.TextBytes()
		return fh.Sync()
	})
	if err != nil {
		return err
	}
	info, err := shard.InspectShard(path)
	if err != nil {
		return fmt.Errorf("reopen %s: %w", path, err)
	}
	entry.Bytes, entry.UncompressedBytes = info.Bytes, info.UncompressedBytes
	t := rs[0].Tree
	man := manifest.Manifest{Schema: shard.SchemaVersion,
		Settings: manifest.BuildSettings{K: t.K, D: t.D, Roots: roots, Proposer: t.Proposer, Model: t.Model, Seed: rep.Seed,
			TasksSource: rep.TasksSource, NumTasks: numTasks, TasksPerShard: numTasks, ShardCount: 1, RowsPerGroup: shard.DefaultRowsPerGroup},
		Versions: map[string]string{"go": runtime.Version(), "schema": shard.SchemaVersion, "search_method": rs[0].Method},
		Shards:   []manifest.ShardEntry{entry}, Planned: 1, Complete: complete, Rows: entry.Rows, Trees: entry.Trees}
	return report.WriteJSONFile(filepath.Join(dir, manifest.ManifestName(0, 1)), man)
}
