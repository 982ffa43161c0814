package eval

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"triage/corpus/shard"
)

// BenchmarkEvaluate replays the eight baselines (10 seeds for the
// stochastic ones) over every tree of a corpus streamed from its shards:
// $TRIAGE_BENCH_CORPUS (all splits), else 200 hand-built trees in 8 shards.
// It reports nodes/s and the peak heap (objects, and live as marked by the
// GC). Peak resident memory of the command is measured by
// scripts/scale-bench.sh.
func BenchmarkEvaluate(b *testing.B) {
	dir := os.Getenv("TRIAGE_BENCH_CORPUS")
	if dir == "" {
		dir = b.TempDir()
		writeCorpus(b, dir, testTrees(200), 25, shard.DefaultRowsPerGroup)
	}
	pols := baselines(b)
	runtime.GC()
	runtime.GC() // and the victim caches of the writer's pools
	var nodes int
	var peak, live uint64
	start := time.Now()
	for b.Loop() {
		r, err := shard.OpenTrees([]string{dir}, shard.ReadOptions{Columns: ColumnsFor(pols)})
		if err != nil {
			b.Fatal(err)
		}
		stop := watchHeap()
		res, err := Evaluate(context.Background(), r, pols, Options{Resamples: 100})
		p, l := stop()
		r.Close()
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Nodes
		peak, live = max(peak, p), max(live, l)
	}
	b.ReportMetric(float64(nodes)/time.Since(start).Seconds(), "nodes/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
}
