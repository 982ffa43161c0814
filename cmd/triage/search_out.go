package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"triage/search/eval/report"
	"triage/search/live"

	"triage/corpus"
)

// writeSearchTrees writes the trees of finished searches in the corpus
// schema: one shard and a manifest in --out, or in --out/<method> for each
// method when several ran.
func writeSearchTrees(f *searchFlags, s *searchSetup, rep *live.Report) error {
	byMethod := map[string][]*live.RootResult{}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.Error == "" && r.Tree != nil {
			byMethod[r.Method] = append(byMethod[r.Method], r)
		}
	}
	for _, run := range s.runs {
		dir := f.out
		if len(s.runs) > 1 {
			dir = filepath.Join(f.out, run.Name())
		}
		rs := byMethod[run.Name()]
		if len(rs) == 0 {
			slog.Warn("no finished search to write", "method", run.Name(), "out", dir)
			continue
		}
		if err := writeTreeCorpus(dir, rs, f, len(s.tasks), !rep.Interrupted); err != nil {
			return err
		}
	}
	return nil
}

func writeTreeCorpus(dir string, rs []*live.RootResult, f *searchFlags, numTasks int, complete bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	name := corpus.ShardFileName(0)
	path := filepath.Join(dir, name)
	entry := corpus.ShardEntry{Index: 0, File: name, FirstTask: 0, EndTask: numTasks}
	err := report.WriteFile(path, func(fh *os.File) error {
		sw := corpus.NewShardWriter(fh, corpus.WriterOptions{Metadata: map[string]string{"triage.search": rs[0].Method}})
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
	info, err := corpus.InspectShard(path)
	if err != nil {
		return fmt.Errorf("reopen %s: %w", path, err)
	}
	entry.Bytes, entry.UncompressedBytes = info.Bytes, info.UncompressedBytes
	t := rs[0].Tree
	man := corpus.Manifest{Schema: corpus.SchemaVersion,
		Settings: corpus.BuildSettings{K: t.K, D: t.D, Roots: f.roots, Proposer: t.Proposer, Model: t.Model, Seed: f.seed,
			TasksSource: f.tasks, NumTasks: numTasks, TasksPerShard: numTasks, ShardCount: 1, RowsPerGroup: corpus.DefaultRowsPerGroup},
		Versions: map[string]string{"go": runtime.Version(), "schema": corpus.SchemaVersion, "search_method": rs[0].Method},
		Shards:   []corpus.ShardEntry{entry}, Planned: 1, Complete: complete, Rows: entry.Rows, Trees: entry.Trees}
	return report.WriteJSONFile(filepath.Join(dir, corpus.ManifestName(0, 1)), man)
}
