package corpus

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"
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
	o := buildOpts(dir, &fakeProposer{}, &fakeExecutor{})
	o.Config.D, o.Roots, o.TasksPerShard, o.RowsPerGroup = 4, 3, 10, DefaultRowsPerGroup
	o.Logger = slog.New(slog.DiscardHandler)
	if _, err := BuildCorpus(context.Background(), fakeTasks(30), o); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkWriteShard reports Parquet write throughput in MB/s of text
// (programs, feedback, diagnoses, edits, test names and messages).
func BenchmarkWriteShard(b *testing.B) {
	trees, err := LoadTrees(benchCorpus(b))
	if err != nil {
		b.Fatal(err)
	}
	var text int64
	var rows int
	for _, t := range trees {
		for _, r := range TreeRows(t, 0) {
			text += rowTextBytes(&r)
			rows++
		}
	}
	b.SetBytes(text)
	b.ResetTimer()
	for b.Loop() {
		sw := NewShardWriter(io.Discard, WriterOptions{})
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
		return ScanRows(file, func(r []NodeRow) error { *rows += int64(len(r)); return nil })
	})
}

// BenchmarkReadProjected reports read throughput of the (tree_id, depth,
// pass_rate) projection in rows/s.
func BenchmarkReadProjected(b *testing.B) {
	benchRead(b, func(file string, rows *int64) error {
		return ScanProjected(file, func(r []ProjectedRow) error { *rows += int64(len(r)); return nil })
	})
}

// benchRead scans every shard of the bench corpus per iteration with scan,
// which adds the rows it read to *rows, and reports rows/s.
func benchRead(b *testing.B, scan func(file string, rows *int64) error) {
	files, err := ListShards(benchCorpus(b))
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
