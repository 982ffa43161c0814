package search_test

import (
	"context"
	"os/exec"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/bundled"
	"triage/corpus/limits"
	"triage/search"
	"triage/search/proposer/mutate"
	"triage/search/sandbox"
)

// TestLiveReproducesCorpusTree: with the seeded mutate proposer on bundled
// tasks, a live search (NewLive + Run) with a deterministic policy expands
// the same programs in the same order as its replay on the corpus tree of
// the same root (build.BuildTree), with the same diagnoses, edits and
// verdicts, and finds the same fix at the same step. Both sides run through
// one execution cache, so a verdict near the time limit cannot differ
// between them; what is tested is the expansion step and its keys.
func TestLiveReproducesCorpusTree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Python sandbox: skipped under -short")
	}
	if _, err := exec.LookPath(sandbox.DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	all, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*corpus.Task{}
	for i := range all {
		byID[all[i].ID] = &all[i]
	}
	ctx := context.Background()
	pool, err := sandbox.New(sandbox.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	const k, d, seed = 3, 4, 1
	prop := mutate.New(mutate.Options{Seed: seed})
	policies := []string{"bfs", "passrate", "dfs"}
	longest := 0
	for _, id := range []string{"bit_count_ones", "str_longest_common_prefix"} {
		task := byID[id]
		if task == nil {
			t.Fatalf("no bundled task %s", id)
		}
		exec := build.NewCachedExecutor(pool)
		limits := limits.DefaultTimeLimits()
		check, err := build.CheckTask(ctx, exec, task, build.CheckOptions{Limits: limits, Coverage: true})
		if err != nil || !check.Valid() {
			t.Fatalf("%s: check %+v, %v", id, check, err)
		}
		roots, err := mutate.Inject(ctx, task, exec, 1, build.TaskSeed(seed, id))
		if err != nil || len(roots) == 0 {
			t.Fatalf("%s: roots %d, %v", id, len(roots), err)
		}
		lim := limits.Run(check.Limit)
		cfg := build.BuildConfig{K: k, D: d, Proposer: prop, Executor: exec, Timeout: lim.Timeout, CPULimit: lim.CPU,
			ProposerName: "mutate", Model: "mutate"}
		tree, err := build.BuildTree(ctx, cfg, task, 0, roots[0])
		if err != nil {
			t.Fatal(err)
		}
		replay, err := search.NewReplay(tree)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range policies {
			want, werr := search.Run(ctx, replay, mustPolicy(t, name), search.Config{})
			live, err := search.NewLive(ctx, task, roots[0], prop, exec, search.LiveOptions{K: k, D: d,
				Timeout: lim.Timeout, CPULimit: lim.CPU, Proposer: "mutate", Model: "mutate"})
			if err != nil {
				t.Fatal(err)
			}
			got, gerr := search.Run(ctx, live, mustPolicy(t, name), search.Config{})
			if gerr != nil || werr != nil || got.End != want.End {
				t.Fatalf("%s %s: live ended %q (%v), replay %q (%v)", id, name, got.End, gerr, want.End, werr)
			}
			lt := live.Tree()
			if lt.ID != tree.ID {
				t.Fatalf("%s: live tree id %s, corpus %s", id, lt.ID, tree.ID)
			}
			sameNode(t, id+" "+name+" root", lt, lt.Root(), tree, tree.Root())
			if got.Solved != want.Solved || got.Expansions != want.Expansions || len(got.Order) != len(want.Order) {
				t.Fatalf("%s %s: live solved %v in %d expansions, replay %v in %d", id, name,
					got.Solved, got.Expansions, want.Solved, want.Expansions)
			}
			for i := range want.Order {
				sameNode(t, id+" "+name, lt, lt.Node(got.Children[i]), tree, tree.Node(want.Children[i]))
			}
			if got.Solved && lt.Node(got.Fix).ProgramSHA != tree.Node(want.Fix).ProgramSHA {
				t.Errorf("%s %s: live fix differs from the replay's", id, name)
			}
			longest = max(longest, want.Expansions)
			t.Logf("%s %s: solved %v after %d expansions (corpus tree: %d nodes)", id, name, want.Solved, want.Expansions, len(tree.Nodes))
		}
	}
	if longest < 5 {
		t.Errorf("every search ended within %d expansions: the fixture does not test the order", longest)
	}
}

// sameNode fails unless the live node a (of tree at) and the corpus node b
// (of bt) hold the same program, verdicts, diagnosis and edits.
func sameNode(t *testing.T, what string, at *corpus.Tree, a *corpus.Node, bt *corpus.Tree, b *corpus.Node) {
	t.Helper()
	if a.ProgramSHA != b.ProgramSHA || a.Depth != b.Depth || a.Exec.Status != b.Exec.Status ||
		a.Exec.PassRate != b.Exec.PassRate || a.Diagnosis != b.Diagnosis || a.ReviseFailed != b.ReviseFailed ||
		len(a.Edges) != len(b.Edges) {
		t.Fatalf("%s: live node %d (depth %d, %s, pass %.2f, %d edits) differs from corpus node %d (depth %d, %s, pass %.2f, %d edits)",
			what, a.ID, a.Depth, a.Exec.Status, a.Exec.PassRate, len(a.Edges), b.ID, b.Depth, b.Exec.Status, b.Exec.PassRate, len(b.Edges))
	}
	for i := range a.Edges {
		if !at.Edge(a.Edges[i]).Edit.Equal(bt.Edge(b.Edges[i]).Edit) {
			t.Fatalf("%s: edit %d of live node %d differs from that of corpus node %d", what, i, a.ID, b.ID)
		}
	}
}
