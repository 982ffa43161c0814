package stats_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/stats"
)

// TestStatsProtections: stats list the sandbox protections every slice's
// session had; one slice built without a protection takes it off; a merge
// keeps the same list.
func TestStatsProtections(t *testing.T) {
	tasks := corpustest.FakeTasks(4)
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	for i, tc := range []struct {
		dir  string
		prot []string
	}{{a, []string{"cgroup-memory", "netns", "output-cap"}}, {b, []string{"output-cap", "netns"}}} {
		o := buildtest.Options(tc.dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
		o.ShardIndex, o.ShardCount, o.Protections = i, 2, tc.prot
		if _, err := build.BuildCorpus(ctx, tasks, o); err != nil {
			t.Fatal(err)
		}
	}
	one, err := stats.ComputeStats(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cgroup-memory", "netns", "output-cap"}; !reflect.DeepEqual(one.Protections, want) {
		t.Errorf("one slice: protections %v, want %v", one.Protections, want)
	}
	both, err := stats.ComputeStats(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"netns", "output-cap"}; !reflect.DeepEqual(both.Protections, want) {
		t.Errorf("both slices: protections %v, want %v", both.Protections, want)
	}
	// A merge keeps what both slices had, and stats of the merged corpus
	// say the same; with a slice that records none it vouches for none.
	merged, err := manifest.Merge(filepath.Join(t.TempDir(), "merged"), []string{a, b}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"netns", "output-cap"}; !reflect.DeepEqual(merged.Protections, want) {
		t.Errorf("merged: protections %v, want %v", merged.Protections, want)
	}
	none := t.TempDir()
	o := buildtest.Options(none, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.ShardIndex, o.ShardCount = 1, 2
	if _, err := build.BuildCorpus(ctx, tasks, o); err != nil {
		t.Fatal(err)
	}
	mixed, err := manifest.Merge(filepath.Join(t.TempDir(), "mixed"), []string{a, none}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(mixed.Protections) != 0 {
		t.Errorf("merged with a slice that records none: protections %v, want none", mixed.Protections)
	}
}
