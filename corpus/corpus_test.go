package corpus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

func buildOpts(out string, p *fakeProposer, x *fakeExecutor) BuildOptions {
	return BuildOptions{Config: fakeConfig(p, x), Roots: 2, RootsFunc: fakeRoots, Seed: 7, Out: out,
		Workers: 2, TasksPerShard: 3, RowsPerGroup: 50, TasksSource: "fake",
		Logger: slog.New(slog.DiscardHandler)}
}

// allRows reads every row of a corpus, sorted by (tree, node).
func allRows(t *testing.T, dirs ...string) []NodeRow {
	t.Helper()
	files, err := ListShards(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	var rows []NodeRow
	for _, f := range files {
		if err := ScanRows(f, func(b []NodeRow) error { rows = append(rows, b...); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].TreeID != rows[j].TreeID {
			return rows[i].TreeID < rows[j].TreeID
		}
		return rows[i].NodeID < rows[j].NodeID
	})
	return rows
}

func TestParquetRoundTrip(t *testing.T) {
	task := &Task{ID: "rt", Test: "tests", Split: "val"}
	var trees []*Tree
	for ri := 0; ri < 4; ri++ {
		tr, err := BuildTree(context.Background(), fakeConfig(&fakeProposer{}, &fakeExecutor{}), task, ri, fmt.Sprintf("root %d\n", ri))
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tr)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, ShardFileName(0))
	err := writeAtomic(nil, path, func(w io.Writer) error {
		sw := NewShardWriter(w, WriterOptions{RowsPerGroup: 7})
		for i, tr := range trees {
			if err := sw.WriteTree(tr, i); err != nil {
				return err
			}
		}
		return sw.Close()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := InspectShard(path)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tr := range trees {
		total += len(tr.Nodes)
	}
	if info.Rows != int64(total) || info.RowGroups != (total+6)/7 || info.Schema != SchemaVersion {
		t.Errorf("info %+v, want %d rows in %d groups", info, total, (total+6)/7)
	}
	got, err := LoadTrees(dir, dir) // the same folder twice: each tree once
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(trees, func(i, j int) bool { return trees[i].ID < trees[j].ID })
	if len(got) != len(trees) {
		t.Fatalf("loaded %d trees, want %d", len(got), len(trees))
	}
	for i := range trees {
		if !reflect.DeepEqual(got[i], trees[i]) {
			t.Errorf("tree %s differs after the round trip", trees[i].ID)
			a, b := *got[i], *trees[i]
			a.Nodes, b.Nodes, a.Edges, b.Edges = nil, nil, nil, nil
			if !reflect.DeepEqual(a, b) {
				t.Logf("tree fields: got %+v want %+v", a, b)
			}
			for j := range trees[i].Nodes {
				if !reflect.DeepEqual(got[i].Nodes[j], trees[i].Nodes[j]) {
					t.Logf("node %d:\n got %+v\nwant %+v", j, got[i].Nodes[j], trees[i].Nodes[j])
					break
				}
			}
			for j := range trees[i].Edges {
				if !reflect.DeepEqual(got[i].Edges[j], trees[i].Edges[j]) {
					t.Logf("edge %d:\n got %+v\nwant %+v", j, got[i].Edges[j], trees[i].Edges[j])
					break
				}
			}
		}
	}
	// The scorer's projection carries the proposer's scores, absent ones
	// as nil.
	sr, err := OpenTrees([]string{dir}, ReadOptions{Columns: ScorerColumns})
	if err != nil {
		t.Fatal(err)
	}
	scored, unscored := 0, 0
	for {
		tr, err := sr.Next()
		if err != nil {
			break
		}
		want := trees[sort.Search(len(trees), func(i int) bool { return trees[i].ID >= tr.ID })]
		for j, e := range tr.Edges {
			w := want.Edges[j].Edit.Score
			switch {
			case (e.Edit.Score == nil) != (w == nil) || (w != nil && *e.Edit.Score != *w):
				t.Errorf("tree %s edge %d: score %v, want %v", tr.ID, j, e.Edit.Score, w)
			case w == nil:
				unscored++
			default:
				scored++
			}
		}
	}
	sr.Close()
	if scored == 0 || unscored == 0 {
		t.Errorf("scorer read: %d scored and %d unscored edges, want both", scored, unscored)
	}
	var proj int
	if err := ScanProjected(path, func(b []ProjectedRow) error {
		for _, r := range b {
			if r.TreeID == "" || r.PassRate < 0 || r.PassRate > 1 {
				return fmt.Errorf("bad projected row %+v", r)
			}
		}
		proj += len(b)
		return nil
	}); err != nil || proj != total {
		t.Errorf("projected %d rows (err %v), want %d", proj, err, total)
	}
}

func TestBuildCorpusShardsResumeAndSlices(t *testing.T) {
	tasks := fakeTasks(8) // shards of 3 tasks: 0-3, 3-6, 6-8
	ctx := context.Background()
	full := t.TempDir()
	fo := buildOpts(full, &fakeProposer{}, &fakeExecutor{})
	fo.Protections = []string{"netns", "output-cap"}
	var last Progress
	events := 0
	fo.Progress = func(p Progress) { last = p; events++ }
	man, err := BuildCorpus(ctx, tasks, fo)
	if err != nil {
		t.Fatal(err)
	}
	if last.TreesDone != man.Trees || last.TreesTotal != man.Trees || last.Nodes != man.Rows || last.ShardsDone != 3 || events < man.Trees {
		t.Errorf("last progress %+v after %d events; manifest: %d trees, %d rows", last, events, man.Trees, man.Rows)
	}
	if !man.Complete || len(man.Shards) != 3 || man.Planned != 3 || man.Trees != 16 {
		t.Fatalf("manifest %+v", man)
	}
	want := allRows(t, full)
	if int64(len(want)) != man.Rows {
		t.Fatalf("rows %d, manifest says %d", len(want), man.Rows)
	}
	disk, err := ReadManifest(filepath.Join(full, "manifest.json"))
	if err != nil || !reflect.DeepEqual(disk.Shards, man.Shards) {
		t.Fatalf("manifest on disk %+v (err %v)", disk, err)
	}
	if !reflect.DeepEqual(disk.Protections, fo.Protections) {
		t.Errorf("manifest records protections %v, want %v", disk.Protections, fo.Protections)
	}

	// A second build into the same folder without --resume is refused.
	if _, err := BuildCorpus(ctx, tasks, buildOpts(full, &fakeProposer{}, &fakeExecutor{})); !errors.Is(err, ErrOutputExists) {
		t.Errorf("rebuild without resume: %v", err)
	}
	// Resume with other settings is refused.
	o := buildOpts(full, &fakeProposer{}, &fakeExecutor{})
	o.Resume, o.Config.K = true, 2
	if _, err := BuildCorpus(ctx, tasks, o); !errors.Is(err, ErrSettingsMismatch) {
		t.Errorf("resume with k=2: %v", err)
	}
	// Resume of a complete build does no work.
	p := &fakeProposer{}
	o = buildOpts(full, p, &fakeExecutor{})
	o.Resume = true
	if _, err := BuildCorpus(ctx, tasks, o); err != nil || p.proposals.Load() != 0 {
		t.Errorf("resume of a complete build: err %v, %d proposals", err, p.proposals.Load())
	}

	// Two slices into one folder; then two slices into two folders.
	shared := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	for i := 0; i < 2; i++ {
		for _, out := range []string{shared, []string{a, b}[i]} {
			o := buildOpts(out, &fakeProposer{}, &fakeExecutor{})
			o.ShardIndex, o.ShardCount = i, 2
			m, err := BuildCorpus(ctx, tasks, o)
			if err != nil {
				t.Fatal(err)
			}
			if !m.Complete {
				t.Errorf("slice %d incomplete", i)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(shared, "manifest-1-of-2.json")); err != nil {
		t.Error(err)
	}
	if got := allRows(t, shared); !reflect.DeepEqual(got, want) {
		t.Errorf("sliced build into one folder: %d rows, differs from the full build's %d", len(got), len(want))
	}
	if got := allRows(t, a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("sliced build into two folders: %d rows, differs from the full build's %d", len(got), len(want))
	}
	fullTrees, err := LoadTrees(full)
	if err != nil {
		t.Fatal(err)
	}
	unionTrees, err := LoadTrees(a, b, full)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fullTrees, unionTrees) {
		t.Error("union of slices and the full build loads differently from the full build")
	}
	for _, tr := range fullTrees {
		checkTreeInvariants(t, tr)
	}
}

// failingFile fails writes once a byte budget is spent, like a full disk.
type failingFile struct {
	*os.File
	left *int64
}

var errDiskFull = errors.New("no space left on device (simulated)")

func (f failingFile) Write(p []byte) (int, error) {
	if int64(len(p)) > *f.left {
		n, _ := f.File.Write(p[:*f.left])
		*f.left = 0
		return n, errDiskFull
	}
	*f.left -= int64(len(p))
	return f.File.Write(p)
}

func TestBuildCorpusFailuresKeepFinishedShards(t *testing.T) {
	tasks := fakeTasks(8)
	ctx := context.Background()
	ref := t.TempDir()
	if _, err := BuildCorpus(ctx, tasks, buildOpts(ref, &fakeProposer{}, &fakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	want := allRows(t, ref)
	firstShard, err := os.ReadFile(filepath.Join(ref, ShardFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	refManifest, err := os.ReadFile(filepath.Join(ref, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		mutate func(o *BuildOptions, dir string)
		want   error
	}{
		{"disk full", func(o *BuildOptions, dir string) {
			// Enough for shard 0 and the two manifests before and after it.
			budget := int64(len(firstShard)) + 2*int64(len(refManifest))
			o.create = func(path string) (syncWriteCloser, error) {
				f, err := os.Create(path)
				if err != nil {
					return nil, err
				}
				return failingFile{f, &budget}, nil
			}
			o.Workers, o.TreesInFlight = 1, 1 // shard 0 is written first
		}, errDiskFull},
		{"proposer unreachable", func(o *BuildOptions, dir string) {
			o.Config.Proposer = &fakeProposer{failTask: tasks[7].ID}
			// Trees one at a time: shards 0 and 1 are complete before
			// task 7 fails, and must be written all the same.
			o.Workers, o.TreesInFlight = 1, 1
		}, errFakeDown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := buildOpts(dir, &fakeProposer{}, &fakeExecutor{})
			tc.mutate(&o, dir)
			man, err := BuildCorpus(ctx, tasks, o)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if man == nil || man.Complete || len(man.Shards) == 0 {
				t.Fatalf("manifest after failure: %+v", man)
			}
			disk, err := ReadManifest(filepath.Join(dir, "manifest.json"))
			if err != nil {
				t.Fatalf("manifest unreadable after failure: %v", err)
			}
			// Every listed shard reads, and no temporary file is left.
			for _, s := range disk.Shards {
				info, err := InspectShard(filepath.Join(dir, s.File))
				if err != nil || info.Rows != s.Rows {
					t.Errorf("shard %s: %+v, %v", s.File, info, err)
				}
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			if files, _ := ListShards(dir); len(files) != len(disk.Shards) {
				t.Errorf("%d shard files, manifest lists %d", len(files), len(disk.Shards))
			}
			// Resume with working parts completes the same corpus.
			o = buildOpts(dir, &fakeProposer{}, &fakeExecutor{})
			o.Resume = true
			if _, err := BuildCorpus(ctx, tasks, o); err != nil {
				t.Fatal(err)
			}
			if got := allRows(t, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("resumed corpus has %d rows, differs from the reference's %d", len(got), len(want))
			}
		})
	}
}

func TestBuildCorpusAdoptsRenamedShardAndDropsBadOnes(t *testing.T) {
	tasks := fakeTasks(8)
	ctx := context.Background()
	ref := t.TempDir()
	if _, err := BuildCorpus(ctx, tasks, buildOpts(ref, &fakeProposer{}, &fakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	want := allRows(t, ref)
	dir := t.TempDir()
	o := buildOpts(dir, &fakeProposer{}, &fakeExecutor{})
	o.Config.Proposer = &fakeProposer{failTask: tasks[3].ID}
	_, err := BuildCorpus(ctx, tasks, o)
	if !errors.Is(err, errFakeDown) {
		t.Fatal(err)
	}
	// Plant: a complete shard 2 the manifest does not list (as after a crash
	// between rename and manifest), a garbage shard 1 and a stale temp file.
	data, _ := os.ReadFile(filepath.Join(ref, ShardFileName(2)))
	if err := os.WriteFile(filepath.Join(dir, ShardFileName(2)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ShardFileName(1)), []byte("PAR1 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "."+ShardFileName(1)+".tmp"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &fakeProposer{}
	o = buildOpts(dir, p, &fakeExecutor{})
	o.Resume = true
	man, err := BuildCorpus(ctx, tasks, o)
	if err != nil {
		t.Fatal(err)
	}
	if !man.Complete {
		t.Error("incomplete")
	}
	if got := allRows(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed corpus differs: %d rows, want %d", len(got), len(want))
	}
	// Only shard 1 (tasks 3-5) was rebuilt: shard 2 was adopted.
	if p.proposals.Load() == 0 {
		t.Error("nothing rebuilt")
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

func TestMergeSlices(t *testing.T) {
	tasks := fakeTasks(8)
	ctx := context.Background()
	full := t.TempDir()
	if _, err := BuildCorpus(ctx, tasks, buildOpts(full, &fakeProposer{}, &fakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	want := allRows(t, full)
	a, b := t.TempDir(), t.TempDir()
	for i, d := range []string{a, b} {
		o := buildOpts(d, &fakeProposer{}, &fakeExecutor{})
		o.ShardIndex, o.ShardCount = i, 2
		if _, err := BuildCorpus(ctx, tasks, o); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	man, err := Merge(out, []string{a, b, full}, 40) // full overlaps: each tree once
	if err != nil {
		t.Fatal(err)
	}
	if got := allRows(t, out); !reflect.DeepEqual(got, want) {
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
	if _, err := Merge(out, []string{a}, 0); !errors.Is(err, ErrOutputExists) {
		t.Errorf("merge into a non-empty folder: %v", err)
	}
	if _, err := Merge(t.TempDir(), nil, 0); err == nil {
		t.Error("merge of nothing: no error")
	}
	if man.MissingSlices != "" {
		t.Errorf("every slice given, missing %q", man.MissingSlices)
	}
	// A split kept alone: its trees, in the full build's order, and the
	// manifest says which.
	keep := want[0].Split
	kept, err := MergeSplits(filepath.Join(t.TempDir(), "kept"), []string{full}, 0, []string{keep})
	if err != nil {
		t.Fatal(err)
	}
	var wantKept []NodeRow
	for _, r := range want {
		if r.Split == keep {
			wantKept = append(wantKept, r)
		}
	}
	if kept.Rows != int64(len(wantKept)) || len(wantKept) == len(want) || !slices.Equal(kept.Splits, []string{keep}) {
		t.Errorf("split %s: %d rows (want %d of %d), splits %v", keep, kept.Rows, len(wantKept), len(want), kept.Splits)
	}
	// One slice of two: the merged manifest says which is missing.
	part, err := Merge(filepath.Join(t.TempDir(), "part"), []string{b}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if part.MissingSlices != "0 of 2" {
		t.Errorf("slice 1 of 2 alone: missing %q, want \"0 of 2\"", part.MissingSlices)
	}
	// A build with another depth is another corpus.
	other := t.TempDir()
	o := buildOpts(other, &fakeProposer{}, &fakeExecutor{})
	o.Config.D = 2
	if _, err := BuildCorpus(ctx, tasks, o); err != nil {
		t.Fatal(err)
	}
	_, err = Merge(filepath.Join(t.TempDir(), "mixed"), []string{a, other}, 0)
	if !errors.Is(err, ErrMergeSettings) || !strings.Contains(err.Error(), "depth") {
		t.Errorf("merge of depth 3 and depth 2 builds: %v, want ErrMergeSettings naming depth", err)
	}
}

// TestStatsProtections: stats list the sandbox protections every slice's
// session had; one slice built without a protection takes it off; a merge
// keeps the same list.
func TestStatsProtections(t *testing.T) {
	tasks := fakeTasks(4)
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	for i, tc := range []struct {
		dir  string
		prot []string
	}{{a, []string{"cgroup-memory", "netns", "output-cap"}}, {b, []string{"output-cap", "netns"}}} {
		o := buildOpts(tc.dir, &fakeProposer{}, &fakeExecutor{})
		o.ShardIndex, o.ShardCount, o.Protections = i, 2, tc.prot
		if _, err := BuildCorpus(ctx, tasks, o); err != nil {
			t.Fatal(err)
		}
	}
	one, err := ComputeStats(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cgroup-memory", "netns", "output-cap"}; !reflect.DeepEqual(one.Protections, want) {
		t.Errorf("one slice: protections %v, want %v", one.Protections, want)
	}
	both, err := ComputeStats(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"netns", "output-cap"}; !reflect.DeepEqual(both.Protections, want) {
		t.Errorf("both slices: protections %v, want %v", both.Protections, want)
	}
	// A merge keeps what both slices had, and stats of the merged corpus
	// say the same; with a slice that records none it vouches for none.
	merged, err := Merge(filepath.Join(t.TempDir(), "merged"), []string{a, b}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"netns", "output-cap"}; !reflect.DeepEqual(merged.Protections, want) {
		t.Errorf("merged: protections %v, want %v", merged.Protections, want)
	}
	none := t.TempDir()
	o := buildOpts(none, &fakeProposer{}, &fakeExecutor{})
	o.ShardIndex, o.ShardCount = 1, 2
	if _, err := BuildCorpus(ctx, tasks, o); err != nil {
		t.Fatal(err)
	}
	mixed, err := Merge(filepath.Join(t.TempDir(), "mixed"), []string{a, none}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(mixed.Protections) != 0 {
		t.Errorf("merged with a slice that records none: protections %v, want none", mixed.Protections)
	}
}
