package manifest_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

func TestMergeSlices(t *testing.T) {
	tasks := corpustest.FakeTasks(8)
	ctx := context.Background()
	full := t.TempDir()
	if _, err := build.BuildCorpus(ctx, tasks, buildtest.Options(full, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	want := buildtest.AllRows(t, full)
	a, b := t.TempDir(), t.TempDir()
	for i, d := range []string{a, b} {
		o := buildtest.Options(d, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
		o.ShardIndex, o.ShardCount = i, 2
		if _, err := build.BuildCorpus(ctx, tasks, o); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	man, err := manifest.Merge(out, []string{a, b, full}, 40) // full overlaps: each tree once
	if err != nil {
		t.Fatal(err)
	}
	if got := buildtest.AllRows(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("merged %d rows, differs from the full build's %d", len(got), len(want))
	}
	if !man.Complete || len(man.Shards) < 2 || man.Rows != int64(len(want)) || man.Settings.K != 3 {
		t.Errorf("merge manifest %+v", man)
	}
	for _, s := range man.Shards {
		// Shards hold whole trees; only a single big tree may exceed the bound.
		if s.Rows > 40 && s.Trees > 1 {
			t.Errorf("shard %d: %d rows in %d trees", s.Index, s.Rows, s.Trees)
		}
	}
	if _, err := manifest.Merge(out, []string{a}, 0); !errors.Is(err, manifest.ErrOutputExists) {
		t.Errorf("merge into a non-empty folder: %v", err)
	}
	if _, err := manifest.Merge(t.TempDir(), nil, 0); err == nil {
		t.Error("merge of nothing: no error")
	}
	if man.MissingSlices != "" {
		t.Errorf("every slice given, missing %q", man.MissingSlices)
	}
	// A split kept alone: its trees, in the full build's order, and the
	// manifest says which.
	keep := want[0].Split
	kept, err := manifest.MergeSplits(filepath.Join(t.TempDir(), "kept"), []string{full}, 0, []string{keep})
	if err != nil {
		t.Fatal(err)
	}
	var wantKept []shard.NodeRow
	for _, r := range want {
		if r.Split == keep {
			wantKept = append(wantKept, r)
		}
	}
	if kept.Rows != int64(len(wantKept)) || len(wantKept) == len(want) || !slices.Equal(kept.Splits, []string{keep}) {
		t.Errorf("split %s: %d rows (want %d of %d), splits %v", keep, kept.Rows, len(wantKept), len(want), kept.Splits)
	}
	// One slice of two: the merged manifest says which is missing.
	part, err := manifest.Merge(filepath.Join(t.TempDir(), "part"), []string{b}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if part.MissingSlices != "0 of 2" {
		t.Errorf("slice 1 of 2 alone: missing %q, want \"0 of 2\"", part.MissingSlices)
	}
	// A build with another depth is another corpus.
	other := t.TempDir()
	o := buildtest.Options(other, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.Config.D = 2
	if _, err := build.BuildCorpus(ctx, tasks, o); err != nil {
		t.Fatal(err)
	}
	_, err = manifest.Merge(filepath.Join(t.TempDir(), "mixed"), []string{a, other}, 0)
	if !errors.Is(err, manifest.ErrMergeSettings) || !strings.Contains(err.Error(), "depth") {
		t.Errorf("merge of depth 3 and depth 2 builds: %v, want ErrMergeSettings naming depth", err)
	}
}
