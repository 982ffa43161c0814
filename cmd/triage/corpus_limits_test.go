package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/corpus/limits"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/search/sandbox"
)

// writeBundledSubset writes the bundled tasks with the given ids as a task
// file and returns its path.
func writeBundledSubset(t *testing.T, dir string, ids ...string) string {
	t.Helper()
	all, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var tasks []corpus.Task
	for _, id := range ids {
		i := slices.IndexFunc(all, func(x corpus.Task) bool { return x.ID == id })
		if i < 0 {
			t.Fatalf("no bundled task %s", id)
		}
		tasks = append(tasks, all[i])
	}
	var b bytes.Buffer
	if err := corpus.WriteTasks(&b, tasks); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAdaptiveLimitVerdictsMatchFixed builds a corpus of at least 500 nodes
// with the default adaptive time limits, then runs every distinct program
// again under a fixed generous limit (10 s, the old default) and requires
// the same verdict for each: the same status and the same passed and failed
// tests. The nodes that timed out under the adaptive limit must time out
// under the generous one too: they loop, they are not just slow. The cap is
// 2 s rather than the default 10 s so that on a loaded machine, where the
// references slow down and the limits grow with them, the adaptive limits
// still stay five times below the generous one.
func TestAdaptiveLimitVerdictsMatchFixed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 500-node corpus and reruns it in the sandbox: skipped under -short")
	}
	if _, err := exec.LookPath(sandbox.DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	dir := t.TempDir()
	tasks := writeBundledSubset(t, dir, "arr_best_time_stock", "arr_longest_increasing_run", "arr_majority_element",
		"arr_spiral_order", "arr_trapping_rain_water")
	out := filepath.Join(dir, "c")
	if got := runCLI(t, "corpus", "build", "--tasks", tasks, "--roots", "1", "--out", out, "--workers", "2",
		"--test-timeout-cap", "2s", "--no-progress"); got != exitOK {
		t.Fatalf("build: exit %d", got)
	}
	man, err := manifest.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	taskLimits := map[string]time.Duration{}
	for _, s := range man.Shards {
		for _, r := range s.Tasks {
			taskLimits[r.TaskID] = time.Duration(r.LimitMS * float64(time.Millisecond))
		}
	}
	want := limits.DefaultTimeLimits()
	want.Cap = 2 * time.Second
	if man.Settings.Limits != want {
		t.Errorf("manifest limits %+v, want %+v", man.Settings.Limits, want)
	}
	trees, err := shard.LoadTrees(out)
	if err != nil {
		t.Fatal(err)
	}
	taskTests := map[string]string{}
	all, _ := bundled.Tasks()
	for _, tk := range all {
		taskTests[tk.ID] = tk.Test
	}
	type run struct {
		task, program string
		want          corpus.Execution
	}
	var runs []run
	seen := map[[2]string]bool{}
	nodes := 0
	for _, tr := range trees {
		for i := range tr.Nodes {
			n := &tr.Nodes[i]
			nodes++
			if n.ReviseFailed || seen[[2]string{tr.TaskID, n.Program}] {
				continue
			}
			seen[[2]string{tr.TaskID, n.Program}] = true
			runs = append(runs, run{tr.TaskID, n.Program, n.Exec})
		}
	}
	if nodes < 500 {
		t.Fatalf("%d nodes, want ≥ 500", nodes)
	}
	pool, err := sandbox.New(sandbox.Options{Workers: 2, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var mu sync.Mutex
	timeouts, mismatches := 0, 0
	err = corpus.ForEach(context.Background(), len(runs), 4, func(i int) error {
		r := runs[i]
		got, err := pool.Run(context.Background(), r.program, taskTests[r.task])
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if r.want.Status == corpus.StatusTimeout {
			timeouts++
		}
		if v, w := verdict(got), verdict(r.want); v != w {
			mismatches++
			t.Errorf("task %s (limit %v): adaptive verdict %s, under 10 s %s\n%s", r.task, taskLimits[r.task], w, v, r.program)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d nodes, %d distinct programs rerun under 10 s: %d mismatches; %d timed out under the adaptive limits %v",
		nodes, len(runs), mismatches, timeouts, taskLimits)
}

// verdict is an execution's status and its tests' outcomes.
func verdict(ex corpus.Execution) string {
	var b strings.Builder
	b.WriteString(string(ex.Status))
	for _, tr := range ex.Tests {
		b.WriteString(" " + tr.Name + "=")
		if tr.Passed {
			b.WriteString("pass")
		} else {
			b.WriteString("fail")
		}
	}
	return b.String()
}
