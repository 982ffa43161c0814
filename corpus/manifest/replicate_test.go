package manifest_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/build/buildtest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/corpus/stats"
)

func TestReplicate(t *testing.T) {
	src := buildtest.SplitCorpus(t)
	orig, err := shard.LoadTrees(src)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := manifest.Replicate(context.Background(), out, []string{src}, manifest.ReplicateOptions{Copies: 3, Shards: 2, RowsPerGroup: 40})
	if err != nil {
		t.Fatal(err)
	}
	got, err := shard.LoadTrees(out)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := shard.ListShards(out)
	if len(got) != 3*len(orig) || rep.Trees != len(got) || rep.Shards != 2 || len(files) != 2 || rep.Bytes <= 0 {
		t.Fatalf("%d trees from %d, report %+v, %d files", len(got), len(orig), rep, len(files))
	}
	byID := map[string]*corpus.Tree{}
	for _, tr := range orig {
		byID[tr.ID] = tr
	}
	var rows int64
	for _, tr := range got {
		rows += int64(len(tr.Nodes))
		id, suffix, ok := strings.Cut(tr.ID, "~")
		o := byID[id]
		if !ok || o == nil || tr.TaskID != o.TaskID+"~"+suffix {
			t.Fatalf("copy %s of task %s: no source tree", tr.ID, tr.TaskID)
		}
		c := *tr
		c.ID, c.TaskID = o.ID, o.TaskID
		if !reflect.DeepEqual(&c, o) {
			t.Errorf("copy %s differs from %s beyond its ids", tr.ID, o.ID)
		}
	}
	if rows != rep.Rows {
		t.Errorf("%d rows read, %d reported", rows, rep.Rows)
	}
	if _, err := manifest.Replicate(context.Background(), out, []string{src}, manifest.ReplicateOptions{Copies: 1}); !errors.Is(err, manifest.ErrOutputExists) {
		t.Errorf("into a full folder: %v", err)
	}
	if _, err := manifest.Replicate(context.Background(), t.TempDir(), []string{src}, manifest.ReplicateOptions{}); err == nil {
		t.Error("0 copies: no error")
	}
	one := t.TempDir()
	if _, err := manifest.Replicate(context.Background(), one, []string{src}, manifest.ReplicateOptions{Copies: 2, Split: corpus.SplitTest}); err != nil {
		t.Fatal(err)
	}
	s, err := stats.ComputeStats(one)
	if err != nil || len(s.Splits) != 1 || s.Splits[corpus.SplitTest].Trees != 2*len(orig) {
		t.Errorf("--split test: %+v, %v", s.Splits, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := manifest.Replicate(ctx, t.TempDir(), []string{src}, manifest.ReplicateOptions{Copies: 2}); err == nil {
		t.Error("cancelled: no error")
	}
}
