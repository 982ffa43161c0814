package build_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

func TestBuildCorpusShardsResumeAndSlices(t *testing.T) {
	tasks := corpustest.FakeTasks(8) // shards of 3 tasks: 0-3, 3-6, 6-8
	ctx := context.Background()
	full := t.TempDir()
	fo := buildtest.Options(full, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	fo.Protections = []string{"netns", "output-cap"}
	var last build.Progress
	events := 0
	fo.Progress = func(p build.Progress) { last = p; events++ }
	man, err := build.BuildCorpus(ctx, tasks, fo)
	if err != nil {
		t.Fatal(err)
	}
	if last.TreesDone != man.Trees || last.TreesTotal != man.Trees || last.Nodes != man.Rows || last.ShardsDone != 3 || events < man.Trees {
		t.Errorf("last progress %+v after %d events; manifest: %d trees, %d rows", last, events, man.Trees, man.Rows)
	}
	if !man.Complete || len(man.Shards) != 3 || man.Planned != 3 || man.Trees != 16 {
		t.Fatalf("manifest %+v", man)
	}
	want := buildtest.AllRows(t, full)
	if int64(len(want)) != man.Rows {
		t.Fatalf("rows %d, manifest says %d", len(want), man.Rows)
	}
	disk, err := manifest.ReadManifest(filepath.Join(full, "manifest.json"))
	if err != nil || !reflect.DeepEqual(disk.Shards, man.Shards) {
		t.Fatalf("manifest on disk %+v (err %v)", disk, err)
	}
	if !reflect.DeepEqual(disk.Protections, fo.Protections) {
		t.Errorf("manifest records protections %v, want %v", disk.Protections, fo.Protections)
	}

	// A second build into the same folder without --resume is refused.
	if _, err := build.BuildCorpus(ctx, tasks, buildtest.Options(full, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); !errors.Is(err, manifest.ErrOutputExists) {
		t.Errorf("rebuild without resume: %v", err)
	}
	// Resume with other settings is refused.
	o := buildtest.Options(full, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.Resume, o.Config.K = true, 2
	if _, err := build.BuildCorpus(ctx, tasks, o); !errors.Is(err, manifest.ErrSettingsMismatch) {
		t.Errorf("resume with k=2: %v", err)
	}
	// Resume of a complete build does no work.
	p := &corpustest.FakeProposer{}
	o = buildtest.Options(full, p, &corpustest.FakeExecutor{})
	o.Resume = true
	if _, err := build.BuildCorpus(ctx, tasks, o); err != nil || p.Proposals() != 0 {
		t.Errorf("resume of a complete build: err %v, %d proposals", err, p.Proposals())
	}

	// Two slices into one folder; then two slices into two folders.
	shared := t.TempDir()
	a, b := t.TempDir(), t.TempDir()
	for i := 0; i < 2; i++ {
		for _, out := range []string{shared, []string{a, b}[i]} {
			o := buildtest.Options(out, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
			o.ShardIndex, o.ShardCount = i, 2
			m, err := build.BuildCorpus(ctx, tasks, o)
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
	if got := buildtest.AllRows(t, shared); !reflect.DeepEqual(got, want) {
		t.Errorf("sliced build into one folder: %d rows, differs from the full build's %d", len(got), len(want))
	}
	if got := buildtest.AllRows(t, a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("sliced build into two folders: %d rows, differs from the full build's %d", len(got), len(want))
	}
	fullTrees, err := shard.LoadTrees(full)
	if err != nil {
		t.Fatal(err)
	}
	unionTrees, err := shard.LoadTrees(a, b, full)
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

func (f failingFile) Write(p []byte) (int, error) {
	if int64(len(p)) > *f.left {
		n, _ := f.File.Write(p[:*f.left])
		*f.left = 0
		return n, errDiskFull
	}
	*f.left -= int64(len(p))
	return f.File.Write(p)
}

var errDiskFull = errors.New("no space left on device (simulated)")

func TestBuildCorpusFailuresKeepFinishedShards(t *testing.T) {
	tasks := corpustest.FakeTasks(8)
	ctx := context.Background()
	ref := t.TempDir()
	if _, err := build.BuildCorpus(ctx, tasks, buildtest.Options(ref, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	want := buildtest.AllRows(t, ref)
	firstShard, err := os.ReadFile(filepath.Join(ref, manifest.ShardFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	refManifest, err := os.ReadFile(filepath.Join(ref, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		mutate func(o *build.BuildOptions, dir string)
		want   error
	}{
		{"disk full", func(o *build.BuildOptions, dir string) {
			// Enough for shard 0 and the two manifests before and after it.
			budget := int64(len(firstShard)) + 2*int64(len(refManifest))
			*build.Create(o) = func(path string) (shard.SyncWriteCloser, error) {
				f, err := os.Create(path)
				if err != nil {
					return nil, err
				}
				return failingFile{f, &budget}, nil
			}
			o.Workers, o.TreesInFlight = 1, 1 // shard 0 is written first
		}, errDiskFull},
		{"proposer unreachable", func(o *build.BuildOptions, dir string) {
			o.Config.Proposer = &corpustest.FakeProposer{FailTask: tasks[7].ID}
			// Trees one at a time: shards 0 and 1 are complete before
			// task 7 fails, and must be written all the same.
			o.Workers, o.TreesInFlight = 1, 1
		}, corpustest.ErrFakeDown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			o := buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
			tc.mutate(&o, dir)
			man, err := build.BuildCorpus(ctx, tasks, o)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if man == nil || man.Complete || len(man.Shards) == 0 {
				t.Fatalf("manifest after failure: %+v", man)
			}
			disk, err := manifest.ReadManifest(filepath.Join(dir, "manifest.json"))
			if err != nil {
				t.Fatalf("manifest unreadable after failure: %v", err)
			}
			// Every listed shard reads, and no temporary file is left.
			for _, s := range disk.Shards {
				info, err := shard.InspectShard(filepath.Join(dir, s.File))
				if err != nil || info.Rows != s.Rows {
					t.Errorf("shard %s: %+v, %v", s.File, info, err)
				}
			}
			if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			if files, _ := shard.ListShards(dir); len(files) != len(disk.Shards) {
				t.Errorf("%d shard files, manifest lists %d", len(files), len(disk.Shards))
			}
			// Resume with working parts completes the same corpus.
			o = buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
			o.Resume = true
			if _, err := build.BuildCorpus(ctx, tasks, o); err != nil {
				t.Fatal(err)
			}
			if got := buildtest.AllRows(t, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("resumed corpus has %d rows, differs from the reference's %d", len(got), len(want))
			}
		})
	}
}

func TestBuildCorpusAdoptsRenamedShardAndDropsBadOnes(t *testing.T) {
	tasks := corpustest.FakeTasks(8)
	ctx := context.Background()
	ref := t.TempDir()
	if _, err := build.BuildCorpus(ctx, tasks, buildtest.Options(ref, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	want := buildtest.AllRows(t, ref)
	dir := t.TempDir()
	o := buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
	o.Config.Proposer = &corpustest.FakeProposer{FailTask: tasks[3].ID}
	_, err := build.BuildCorpus(ctx, tasks, o)
	if !errors.Is(err, corpustest.ErrFakeDown) {
		t.Fatal(err)
	}
	// Plant: a complete shard 2 the manifest does not list (as after a crash
	// between rename and manifest), a garbage shard 1 and a stale temp file.
	data, _ := os.ReadFile(filepath.Join(ref, manifest.ShardFileName(2)))
	if err := os.WriteFile(filepath.Join(dir, manifest.ShardFileName(2)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.ShardFileName(1)), []byte("PAR1 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "."+manifest.ShardFileName(1)+".tmp"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &corpustest.FakeProposer{}
	o = buildtest.Options(dir, p, &corpustest.FakeExecutor{})
	o.Resume = true
	man, err := build.BuildCorpus(ctx, tasks, o)
	if err != nil {
		t.Fatal(err)
	}
	if !man.Complete {
		t.Error("incomplete")
	}
	if got := buildtest.AllRows(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("resumed corpus differs: %d rows, want %d", len(got), len(want))
	}
	// Only shard 1 (tasks 3-5) was rebuilt: shard 2 was adopted.
	if p.Proposals() == 0 {
		t.Error("nothing rebuilt")
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
