package taskset

import (
	"path/filepath"
	"testing"

	"triage/corpus"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// TestShippedTestTrees: every embedded source ships a slice of its
// test-split trees (corpus/<source>/test-trees, what `make demo` ranks the
// policies on, one row per source): only test-split tasks of that source
// (no checkpoint trains or tunes on them), built with the judge's settings
// (mutate, k 3, depth 4), whole trees, and together a few hundred with a
// fix.
func TestShippedTestTrees(t *testing.T) {
	total := 0
	for _, src := range Sources() {
		dir := filepath.Join("..", src.Name, "test-trees")
		t.Run(src.Name, func(t *testing.T) {
			man, err := manifest.ReadManifest(filepath.Join(dir, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			if s := man.Settings; s.K != 3 || s.D != 4 || s.Proposer != "mutate" || s.TasksSource != src.Name {
				t.Errorf("settings %+v, want the judge's corpus's (k 3, depth 4, mutate, tasks %s)", s, src.Name)
			}
			tasks, err := src.Load()
			if err != nil {
				t.Fatal(err)
			}
			split := map[string]string{}
			for _, task := range tasks {
				split[task.ID] = task.Split
			}
			trees, err := shard.LoadTrees(dir)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			fixed := 0
			for _, tr := range trees {
				if tr.Split != corpus.SplitTest || split[tr.TaskID] != corpus.SplitTest || tr.Source != src.Name {
					t.Errorf("tree %s: task %s, split %q (task's %q), source %q", tr.ID, tr.TaskID, tr.Split, split[tr.TaskID], tr.Source)
				}
				if seen[tr.ID] {
					t.Errorf("tree %s twice", tr.ID)
				}
				seen[tr.ID] = true
				if tr.HasFix() {
					fixed++
				}
			}
			if fixed < 5 {
				t.Errorf("%d trees, %d with a fix: too few to show anything", len(trees), fixed)
			}
			total += fixed
		})
	}
	if total < 200 {
		t.Errorf("%d test trees with a fix over every source, want a few hundred", total)
	}
}
