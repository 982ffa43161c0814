package shard_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

func TestParquetRoundTrip(t *testing.T) {
	task := &corpus.Task{ID: "rt", Test: "tests", Split: "val"}
	var trees []*corpus.Tree
	for ri := 0; ri < 4; ri++ {
		tr, err := build.BuildTree(context.Background(), buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), task, ri, fmt.Sprintf("root %d\n", ri))
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tr)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, manifest.ShardFileName(0))
	err := shard.WriteAtomic(nil, path, func(w io.Writer) error {
		sw := shard.NewShardWriter(w, shard.WriterOptions{RowsPerGroup: 7})
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
	info, err := shard.InspectShard(path)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, tr := range trees {
		total += len(tr.Nodes)
	}
	if info.Rows != int64(total) || info.RowGroups != (total+6)/7 || info.Schema != shard.SchemaVersion {
		t.Errorf("info %+v, want %d rows in %d groups", info, total, (total+6)/7)
	}
	got, err := shard.LoadTrees(dir, dir) // the same folder twice: each tree once
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
	sr, err := shard.OpenTrees([]string{dir}, shard.ReadOptions{Columns: shard.ScorerColumns})
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
	if err := shard.ScanProjected(path, func(b []shard.ProjectedRow) error {
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
