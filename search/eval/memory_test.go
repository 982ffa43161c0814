package eval

import (
	"context"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// watchHeap samples the heap every millisecond until the returned function
// is called, which returns the largest samples of the bytes of heap objects
// (live and not yet collected) and of the live heap as the last GC marked it.
func watchHeap() func() (objects, live uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var peak, peakLive uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			peakLive = max(peakLive, sample[1].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(stop)
		wg.Wait()
		return peak, peakLive
	}
}

// TestEvaluateShardOverMemoryBudget evaluates a corpus whose one shard
// holds more than twice the process's memory budget (debug.SetMemoryLimit)
// of decoded text, with the learned policy reading that text: the figures
// equal those of the trees in memory and the live heap stays within the
// budget, because only a window of trees is decoded at a time.
func TestEvaluateShardOverMemoryBudget(t *testing.T) {
	const budget = 64 << 20
	trees := testTrees(80)
	// One 48 KiB program shared by every node: little memory here, 48 KiB
	// per row in the shard, and per decoded node when read back.
	big := strings.Repeat("x = compute(x)  # padding\n", 48<<10/26)
	for _, tr := range trees {
		for i := range tr.Nodes {
			tr.Nodes[i].Program = big
		}
	}
	dir := t.TempDir()
	writeCorpus(t, dir, trees, len(trees), 64)
	info, err := shard.InspectShard(filepath.Join(dir, manifest.ShardFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	if info.UncompressedBytes < 2*budget {
		t.Fatalf("shard holds %d bytes uncompressed, want at least twice the budget %d", info.UncompressedBytes, budget)
	}
	pols := append(baselines(t), learned(t))
	opts := Options{Budgets: []int{4, 16}, Seeds: 2, Resamples: 20, Workers: 2}
	want, err := Evaluate(context.Background(), Trees(trees), pols, opts)
	if err != nil {
		t.Fatal(err)
	}

	runtime.GC()
	runtime.GC() // and the victim caches of the writer's pools
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(budget))
	peak := watchHeap()
	got, err := Evaluate(context.Background(), open(t, dir, shard.ScorerColumns, 1), pols, opts)
	p, live := peak()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("evaluated from the shard:\n%+v\nin memory:\n%+v", got, want)
	}
	t.Logf("shard: %d bytes on disk, %d uncompressed; peak heap %d bytes, live %d, budget %d", info.Bytes, info.UncompressedBytes, p, live, budget)
	if live > budget {
		t.Errorf("peak live heap %d bytes: over the budget of %d", live, budget)
	}
}
