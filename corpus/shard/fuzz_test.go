package shard_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// FuzzReadShard feeds arbitrary bytes (seeded with a real shard and its
// truncations) to the shard reader: it may fail, never panic.
func FuzzReadShard(f *testing.F) {
	var buf bytes.Buffer
	tr, err := build.BuildTree(context.Background(), buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), &corpus.Task{ID: "fz", Test: "t"}, 0, "root\n")
	if err != nil {
		f.Fatal(err)
	}
	sw := shard.NewShardWriter(&buf, shard.WriterOptions{RowsPerGroup: 4})
	if err := sw.WriteTree(tr, 0); err != nil {
		f.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add(good[len(good)/3:])
	f.Add([]byte("PAR1PAR1"))
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0xff
	f.Add(flipped)
	// Corrupt footers (thrift metadata) once made OpenFile panic.
	for _, back := range []int{9, 20, 50, 100, 200, 300, 500} {
		if back < len(good) {
			for _, x := range []byte{0xff, 0x80, 0x01} {
				d := bytes.Clone(good)
				d[len(d)-back] ^= x
				f.Add(d)
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, manifest.ShardFileName(0))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = shard.InspectShard(path)
		_ = shard.ScanRows(path, func([]shard.NodeRow) error { return nil })
		_ = shard.ScanProjected(path, func([]shard.ProjectedRow) error { return nil })
		_, _ = shard.LoadTrees(dir)
	})
}

// FuzzTreeFromRows: rows of a real tree with fuzzed ids never panic the
// rebuild; a successful rebuild has dense ids.
func FuzzTreeFromRows(f *testing.F) {
	tr, err := build.BuildTree(context.Background(), buildtest.Config(&corpustest.FakeProposer{}, &corpustest.FakeExecutor{}), &corpus.Task{ID: "fz", Test: "t"}, 0, "NEVER\n")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(int32(0), int32(0), int32(0), int32(0), uint8(0))
	f.Add(int32(1), int32(-1), int32(5), int32(99), uint8(1))
	f.Fuzz(func(t *testing.T, node, parent, edit, child int32, which uint8) {
		rows := shard.TreeRows(tr, 0)
		i := int(which) % len(rows)
		rows[i].NodeID, rows[i].ParentID = node, parent
		if len(rows[i].Edits) > 0 {
			rows[i].Edits[0].EditID, rows[i].Edits[0].ChildNodeID = edit, child
		}
		got, err := shard.TreeFromRows(rows)
		if err != nil {
			return
		}
		for j := range got.Nodes {
			if int(got.Nodes[j].ID) != j {
				t.Fatalf("node %d has id %d", j, got.Nodes[j].ID)
			}
		}
	})
}
