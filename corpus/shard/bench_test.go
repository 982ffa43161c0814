package shard_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/shard"
)

// benchCorpus returns a corpus folder for the benchmarks: $TRIAGE_BENCH_CORPUS
// (e.g. the bundled corpus built by `triage corpus build`), else one built
// here with the fake proposer and executor.
func benchCorpus(b *testing.B) string {
	b.Helper()
	if d := os.Getenv("TRIAGE_BENCH_CORPUS"); d != "" {
		return d
	}
	dir := b.TempDir()
	o := buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.Config.D, o.Roots, o.TasksPerShard, o.RowsPerGroup = 4, 3, 10, shard.DefaultRowsPerGroup
	o.Logger = slog.New(slog.DiscardHandler)
	if _, err := build.BuildCorpus(context.Background(), corpustest.FakeTasks(30), o); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkWriteShard reports Parquet write throughput in MB/s of text
// (programs, feedback, diagnoses, edits, test names and messages).
func BenchmarkWriteShard(b *testing.B) {
	trees, err := shard.LoadTrees(benchCorpus(b))
	if err != nil {
		b.Fatal(err)
	}
	var text int64
	var rows int
	for _, t := range trees {
		for _, r := range shard.TreeRows(t, 0) {
			text += shard.RowTextBytes(&r)
			rows++
		}
	}
	b.SetBytes(text)
	b.ResetTimer()
	for b.Loop() {
		sw := shard.NewShardWriter(io.Discard, shard.WriterOptions{})
		for _, t := range trees {
			if err := sw.WriteTree(t, 0); err != nil {
				b.Fatal(err)
			}
		}
		if err := sw.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows), "rows/op")
}

// BenchmarkReadFull reports full-row read throughput in rows/s.
func BenchmarkReadFull(b *testing.B) {
	benchRead(b, func(file string, rows *int64) error {
		return shard.ScanRows(file, func(r []shard.NodeRow) error { *rows += int64(len(r)); return nil })
	})
}

// BenchmarkReadProjected reports read throughput of the (tree_id, depth,
// pass_rate) projection in rows/s.
func BenchmarkReadProjected(b *testing.B) {
	benchRead(b, func(file string, rows *int64) error {
		return shard.ScanProjected(file, func(r []shard.ProjectedRow) error { *rows += int64(len(r)); return nil })
	})
}

// benchRead scans every shard of the bench corpus per iteration with scan,
// which adds the rows it read to *rows, and reports rows/s.
func benchRead(b *testing.B, scan func(file string, rows *int64) error) {
	files, err := shard.ListShards(benchCorpus(b))
	if err != nil {
		b.Fatal(err)
	}
	var rows int64
	start := time.Now()
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			if err := scan(f, &rows); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
}
