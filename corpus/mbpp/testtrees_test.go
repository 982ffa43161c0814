package mbpp

import (
	"testing"

	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// TestShippedTestTrees: the corpus `make demo` ranks the policies on holds
// MBPP test-split trees only (tasks no checkpoint trains or tunes on), one
// per task, enough with a fix to rank, and its manifest names the build.
func TestShippedTestTrees(t *testing.T) {
	const dir = "test-trees"
	man, err := manifest.ReadManifest(dir + "/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if man.Settings.K != 3 || man.Settings.D != 4 || man.Settings.Roots != 1 || man.Settings.Proposer != "mutate" {
		t.Errorf("settings %+v, want the MBPP corpus's (k 3, depth 4, one root, mutate)", man.Settings)
	}
	tasks, err := Tasks()
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
		if tr.Split != "test" || split[tr.TaskID] != "test" || tr.Source != Name {
			t.Errorf("tree %s: task %s, split %q (task's %q), source %q", tr.ID, tr.TaskID, tr.Split, split[tr.TaskID], tr.Source)
		}
		if seen[tr.TaskID] {
			t.Errorf("task %s has two trees", tr.TaskID)
		}
		seen[tr.TaskID] = true
		if tr.HasFix() {
			fixed++
		}
	}
	if len(trees) < 100 || fixed < 50 {
		t.Errorf("%d trees, %d with a fix: too few to rank policies", len(trees), fixed)
	}
}
