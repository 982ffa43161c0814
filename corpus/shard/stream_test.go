package shard_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/corpus/stats"
)

// readAll drains a reader.
func readAll(t *testing.T, dirs []string, opts shard.ReadOptions) []*corpus.Tree {
	t.Helper()
	r, err := shard.OpenTrees(dirs, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []*corpus.Tree
	for {
		tr, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
}

// project clears from a whole tree what a projection does not decode.
func project(t *corpus.Tree, c shard.Columns) *corpus.Tree {
	p := *t
	p.Nodes = append([]corpus.Node(nil), t.Nodes...)
	p.Edges = append([]corpus.Edge(nil), t.Edges...)
	for i := range p.Nodes {
		n := &p.Nodes[i]
		n.ProgramSHA, n.Raw, n.Exec.DurationMS = "", "", 0
		if c == shard.ReplayColumns {
			n.Program, n.Exec.Feedback, n.Diagnosis = "", "", ""
		}
		if len(n.Exec.Tests) > 0 {
			tests := make([]corpus.TestResult, len(n.Exec.Tests))
			for j, tr := range n.Exec.Tests {
				tests[j] = corpus.TestResult{Passed: tr.Passed}
			}
			n.Exec.Tests = tests
		}
	}
	for i := range p.Edges {
		p.Edges[i].Edit.Payload = ""
		if c == shard.ReplayColumns {
			p.Edges[i].Edit.Text, p.Edges[i].Edit.Score = "", nil
		}
	}
	return &p
}

func TestTreeReaderProjections(t *testing.T) {
	dir := buildtest.SplitCorpus(t)
	whole, err := shard.LoadTrees(dir)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*corpus.Tree{}
	for _, tr := range whole {
		byID[tr.ID] = tr
	}
	var fileOrder []string // tree ids in shard order
	if err := shard.ScanTrees([]string{dir}, func(rows []shard.NodeRow) error {
		fileOrder = append(fileOrder, rows[0].TreeID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []shard.Columns{shard.ReplayColumns, shard.ScorerColumns, shard.AllColumns} {
		for _, split := range []string{"", corpus.SplitTrain, corpus.SplitTest} {
			for _, files := range []int{1, 3} {
				got := readAll(t, []string{dir, dir}, shard.ReadOptions{Split: split, Columns: c, Files: files})
				var want []string
				for _, id := range fileOrder {
					if split == "" || byID[id].Split == split {
						want = append(want, id)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%v split %q files %d: %d trees, want %d", c, split, files, len(got), len(want))
				}
				for i, tr := range got {
					if tr.ID != want[i] {
						t.Fatalf("%v split %q files %d: tree %d is %s, want %s (shard order)", c, split, files, i, tr.ID, want[i])
					}
					w := byID[tr.ID]
					if c != shard.AllColumns {
						w = project(w, c)
					}
					if !reflect.DeepEqual(tr, w) {
						t.Fatalf("%v split %q: tree %s differs from the projected whole tree", c, split, tr.ID)
					}
				}
			}
		}
	}
	one := readAll(t, []string{dir}, shard.ReadOptions{TreeID: whole[3].ID, Columns: shard.AllColumns})
	if len(one) != 1 || !reflect.DeepEqual(one[0], whole[3]) {
		t.Errorf("TreeID filter: %d trees", len(one))
	}
}

// TestTreeReaderEmptySplit: a split that no tree has, and a folder without
// shards, yield no tree and no error.
func TestTreeReaderEmptySplit(t *testing.T) {
	dir := buildtest.SplitCorpus(t)
	if got := readAll(t, []string{dir}, shard.ReadOptions{Split: "nope", Columns: shard.AllColumns}); len(got) != 0 {
		t.Errorf("%d trees in an absent split", len(got))
	}
	if got := readAll(t, []string{t.TempDir()}, shard.ReadOptions{}); len(got) != 0 {
		t.Errorf("%d trees in an empty folder", len(got))
	}
}

func TestTreeReaderCloseEarly(t *testing.T) {
	dir := buildtest.SplitCorpus(t)
	before := runtime.NumGoroutine()
	r, err := shard.OpenTrees([]string{dir}, shard.ReadOptions{Columns: shard.AllColumns, Files: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before", n, before)
	}
}

func TestTreeReaderErrors(t *testing.T) {
	if _, err := shard.OpenTrees([]string{filepath.Join(t.TempDir(), "nope")}, shard.ReadOptions{}); err == nil {
		t.Error("missing folder: no error")
	}
	if _, err := shard.OpenTrees([]string{t.TempDir()}, shard.ReadOptions{Columns: shard.Columns(7)}); err == nil {
		t.Error("unknown projection: no error")
	}
	// Two halves of one tree around another tree: not contiguous.
	tr, err := build.BuildTree(context.Background(), buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), &corpus.Task{ID: "a", Test: "t"}, 0, "root\n")
	if err != nil {
		t.Fatal(err)
	}
	other, err := build.BuildTree(context.Background(), buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), &corpus.Task{ID: "b", Test: "t"}, 0, "root\n")
	if err != nil {
		t.Fatal(err)
	}
	rows := shard.TreeRows(tr, 0)
	dir := t.TempDir()
	writeRows(t, filepath.Join(dir, manifest.ShardFileName(0)), rows[:1], shard.TreeRows(other, 0), rows[1:])
	for _, c := range []shard.Columns{shard.ReplayColumns, shard.AllColumns} {
		r, _ := shard.OpenTrees([]string{dir}, shard.ReadOptions{Columns: c})
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if errors.Is(err, io.EOF) {
			t.Errorf("%v: non-contiguous tree read without error", c)
		}
		if _, again := r.Next(); again != err {
			t.Errorf("%v: error not sticky: %v then %v", c, err, again)
		}
		r.Close()
	}
	// A partial tree.
	dir = t.TempDir()
	writeRows(t, filepath.Join(dir, manifest.ShardFileName(0)), rows[:len(rows)-1])
	if _, err := shard.LoadTrees(dir); err == nil {
		t.Error("partial tree loaded")
	}
}

// writeRows writes row slices to one shard file.
func writeRows(t *testing.T, path string, parts ...[]shard.NodeRow) {
	t.Helper()
	err := shard.WriteAtomic(nil, path, func(w io.Writer) error {
		sw := shard.NewShardWriter(w, shard.WriterOptions{RowsPerGroup: 4})
		for _, p := range parts {
			if err := sw.WriteRows(p); err != nil {
				return err
			}
		}
		return sw.Close()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

// TestCorruptShard: a shard that is not Parquet, is cut short or has
// damaged pages is ErrCorruptShard to every reader that decodes it, so the
// CLI can call it bad input.
func TestCorruptShard(t *testing.T) {
	good := buildtest.SplitCorpus(t)
	whole, err := os.ReadFile(filepath.Join(good, manifest.ShardFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		data     []byte
		footerOK bool // InspectShard reads the footer alone
	}{
		{"garbage", []byte("garbage bytes, not Parquet"), false},
		{"truncated", whole[:len(whole)/2], false},
		{"empty", nil, false},
		{"damaged pages", damaged(whole), true},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, manifest.ShardFileName(0)), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		reads := map[string]func() error{
			"LoadTrees":    func() error { _, err := shard.LoadTrees(dir); return err },
			"ComputeStats": func() error { _, err := stats.ComputeStats(dir); return err },
			"InspectShard": func() error { _, err := shard.InspectShard(filepath.Join(dir, manifest.ShardFileName(0))); return err },
			"OpenTrees": func() error {
				r, err := shard.OpenTrees([]string{dir}, shard.ReadOptions{Columns: shard.ReplayColumns})
				if err != nil {
					return err
				}
				defer r.Close()
				_, err = r.Next()
				return err
			},
		}
		if c.footerOK {
			delete(reads, "InspectShard")
		}
		for name, read := range reads {
			if err := read(); !errors.Is(err, shard.ErrCorruptShard) {
				t.Errorf("%s shard, %s: %v, want ErrCorruptShard", c.name, name, err)
			}
		}
	}
}

// damaged returns a copy of a shard with bytes of its data pages (between
// the leading magic and the footer) overwritten.
func damaged(shard []byte) []byte {
	out := slices.Clone(shard)
	for i := 8; i < len(out)/2; i += 97 {
		out[i] ^= 0x5a
	}
	return out
}
