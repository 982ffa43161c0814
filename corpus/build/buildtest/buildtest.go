// Package buildtest builds small corpora with corpustest's fakes, for the
// tests of the packages that read, merge and summarize what build writes.
//
// Imports: corpus, corpus/build, corpus/shard, corpus/corpustest.
package buildtest

import (
	"context"
	"log/slog"
	"sort"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/corpustest"
	"triage/corpus/shard"
)

// Config grows trees of k = 3, depth 3 with the fakes p and x.
func Config(p *corpustest.FakeProposer, x *corpustest.FakeExecutor) build.BuildConfig {
	return build.BuildConfig{K: 3, D: 3, Proposer: p, Executor: x, ProposerName: "fake", Model: "fake-model"}
}

// Options build a corpus into out with the fakes: 2 roots per task (from
// corpustest.FakeRoots where a task ships none), seed 7, 2 workers, 3 tasks
// per shard, 50 rows per group, no log.
func Options(out string, p *corpustest.FakeProposer, x *corpustest.FakeExecutor) build.BuildOptions {
	return build.BuildOptions{Config: Config(p, x), Roots: 2, RootsFunc: corpustest.FakeRoots, Seed: 7, Out: out,
		Workers: 2, TasksPerShard: 3, RowsPerGroup: 50, TasksSource: "fake",
		Logger: slog.New(slog.DiscardHandler)}
}

// AllRows reads every row of a corpus, sorted by (tree, node).
func AllRows(t *testing.T, dirs ...string) []shard.NodeRow {
	t.Helper()
	files, err := shard.ListShards(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	var rows []shard.NodeRow
	for _, f := range files {
		if err := shard.ScanRows(f, func(b []shard.NodeRow) error { rows = append(rows, b...); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].TreeID != rows[j].TreeID {
			return rows[i].TreeID < rows[j].TreeID
		}
		return rows[i].NodeID < rows[j].NodeID
	})
	return rows
}

// SplitCorpus builds a small corpus of 9 tasks in 3 splits, 2 roots each,
// 3 tasks (6 trees) per shard, row groups of 50 rows (so trees straddle
// row groups), and returns its folder.
func SplitCorpus(t *testing.T) string {
	t.Helper()
	tasks := corpustest.FakeTasks(9)
	for i := range tasks {
		tasks[i].Split = []string{corpus.SplitTrain, corpus.SplitVal, corpus.SplitTest}[i%3]
	}
	dir := t.TempDir()
	if _, err := build.BuildCorpus(context.Background(), tasks, Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	return dir
}
