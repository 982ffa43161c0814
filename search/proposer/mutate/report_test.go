package mutate

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/bundled"
	"triage/search/sandbox"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// TestTreeReport grows exhaustive k=3, D=4 trees with the mutate proposer
// from injected roots of the bundled tasks, through the real sandbox, and
// prints how many roots there are, the fraction whose tree holds a fix and
// the distribution of the depth of the shallowest fix. It is the tuning
// harness of the proposer and the source of the README's numbers; it runs
// only with TRIAGE_TREE_REPORT=1 (minutes of CPU). TRIAGE_TREE_TASKS limits
// the number of tasks (every n-th task is taken so categories stay mixed),
// TRIAGE_TREE_ROOTS the roots per task (default 5), TRIAGE_TREE_SEED the seed.
func TestTreeReport(t *testing.T) {
	if os.Getenv("TRIAGE_TREE_REPORT") == "" {
		t.Skip("set TRIAGE_TREE_REPORT=1 to grow the report trees")
	}
	tasks, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	if n := envInt("TRIAGE_TREE_TASKS", 0); n > 0 && n < len(tasks) {
		step := float64(len(tasks)) / float64(n)
		var pick []corpus.Task
		for i := 0; i < n; i++ {
			pick = append(pick, tasks[int(float64(i)*step)])
		}
		tasks = pick
	}
	roots := envInt("TRIAGE_TREE_ROOTS", 5)
	seed := uint64(envInt("TRIAGE_TREE_SEED", 1))
	opts := sandbox.DefaultOptions()
	opts.Coverage = true
	opts.Workers = envInt("TRIAGE_TREE_WORKERS", opts.Workers)
	// The bundled suites run in well under a second; a short limit keeps
	// mutants that loop forever from dominating the wall time.
	opts.Timeout = time.Duration(envInt("TRIAGE_TREE_TIMEOUT_MS", 2000)) * time.Millisecond
	pool, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	exec := build.NewCachedExecutor(pool)
	ctx := context.Background()
	prop := New(Options{Seed: seed})
	cfg := build.BuildConfig{K: 3, D: 4, Proposer: prop, Executor: exec, ProposerName: "mutate"}

	type job struct {
		task *corpus.Task
		i    int
		root string
	}
	var jobs []job
	start := time.Now()
	for ti := range tasks {
		rs, err := Inject(ctx, &tasks[ti], exec, roots, seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			t.Logf("task %s: no roots", tasks[ti].ID)
		}
		for i, r := range rs {
			jobs = append(jobs, job{&tasks[ti], i, r})
		}
	}
	type result struct {
		fixDepth, nodes, edges, goodEdges int
		loadErr, timeouts                 int
		rootPass                          float64
	}
	results := make([]result, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, opts.Workers+1)
	var mu sync.Mutex
	var firstErr error
	done := 0
	for ji, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			tr, err := build.BuildTree(ctx, cfg, j.task, j.i, j.root)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			res := result{fixDepth: -1, nodes: len(tr.Nodes), edges: len(tr.Edges), rootPass: tr.Root().Exec.PassRate}
			for _, n := range tr.Nodes {
				if n.Solved() && (res.fixDepth < 0 || n.Depth < res.fixDepth) {
					res.fixDepth = n.Depth
				}
				if n.Exec.Status != corpus.StatusOK {
					res.loadErr++
				}
				if n.Exec.Status == corpus.StatusTimeout {
					res.timeouts++
				}
			}
			for _, e := range tr.Edges {
				if e.Child != corpus.NoNode && tr.Node(e.Child).Solved() {
					res.goodEdges++
				}
			}
			results[ji] = res
			mu.Lock()
			done++
			if done%10 == 0 {
				t.Logf("%d/%d trees", done, len(jobs))
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	hist := map[int]int{}
	fixed, nodes, edges, good, bad, tos := 0, 0, 0, 0, 0, 0
	perTask := map[string][2]int{}
	for ji, r := range results {
		hist[r.fixDepth]++
		if r.fixDepth >= 0 {
			fixed++
		}
		nodes += r.nodes
		edges += r.edges
		good += r.goodEdges
		bad += r.loadErr
		tos += r.timeouts
		pt := perTask[jobs[ji].task.ID]
		pt[0]++
		if r.fixDepth >= 0 {
			pt[1]++
		}
		perTask[jobs[ji].task.ID] = pt
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tasks %d, roots %d (≤%d per task, seed %d), k=3 D=4, run limit %v\n", len(tasks), len(jobs), roots, seed, opts.Timeout)
	fmt.Fprintf(&b, "trees with a fix: %d/%d = %.1f%%\n", fixed, len(jobs), 100*float64(fixed)/float64(max(1, len(jobs))))
	var ds []int
	for d := range hist {
		ds = append(ds, d)
	}
	sort.Ints(ds)
	for _, d := range ds {
		name := "depth " + strconv.Itoa(d)
		if d < 0 {
			name = "no fix"
		}
		fmt.Fprintf(&b, "  shallowest fix %-8s %4d (%.1f%%)\n", name+":", hist[d], 100*float64(hist[d])/float64(len(jobs)))
	}
	fmt.Fprintf(&b, "nodes %d (%.1f per tree), edges %d, edges whose child is a fix %.2f%%, non-ok runs %.1f%% of nodes (timeouts %d)\n",
		nodes, float64(nodes)/float64(max(1, len(jobs))), edges, 100*float64(good)/float64(max(1, edges)), 100*float64(bad)/float64(max(1, nodes)), tos)
	tasksWithFix := 0
	for _, pt := range perTask {
		if pt[1] > 0 {
			tasksWithFix++
		}
	}
	fmt.Fprintf(&b, "tasks with at least one fixable root: %d/%d\n", tasksWithFix, len(perTask))
	fmt.Fprintf(&b, "wall time %v\n", time.Since(start).Round(time.Second))
	t.Log("\n" + b.String())
	if out := os.Getenv("TRIAGE_TREE_REPORT_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
