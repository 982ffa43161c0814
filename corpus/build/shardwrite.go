package build

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"triage/corpus"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// shardWriter writes shards and the manifest; one goroutine at a time
// uses it.
type shardWriter struct {
	opts  BuildOptions
	tasks []corpus.Task
	man   *manifest.Manifest
	mpath string
	m     *meter
}

// taskRecordsKey is the shard metadata key of the shard's TaskRecords, so
// a shard adopted after a crash keeps its tasks' limits and skip reasons.
const taskRecordsKey = "triage.task_records"

// write writes shard p, lists it in the manifest and rewrites the manifest.
func (w *shardWriter) write(p *shardPlan) (manifest.ShardEntry, error) {
	start := time.Now()
	defer func() { w.m.addSeconds(&w.m.b.WriteSeconds, time.Since(start)) }()
	opts := w.opts
	path := filepath.Join(opts.Out, manifest.ShardFileName(p.index))
	e := manifest.ShardEntry{Index: p.index, File: manifest.ShardFileName(p.index), FirstTask: p.first, EndTask: p.end}
	for _, ts := range p.tasks {
		e.Tasks = append(e.Tasks, ts.record(w.tasks))
	}
	recs, err := json.Marshal(e.Tasks)
	if err != nil {
		return e, fmt.Errorf("encode task records: %w", err)
	}
	var before func()
	if opts.hook != nil {
		before = func() { opts.hook("tmp", p.index) }
	}
	err = shard.WriteAtomic(opts.create, path, func(out io.Writer) error {
		sw := shard.NewShardWriter(out, shard.WriterOptions{RowsPerGroup: opts.RowsPerGroup,
			Metadata: map[string]string{"triage.shard": fmt.Sprint(p.index),
				"triage.tasks": fmt.Sprintf("%d-%d", p.first, p.end), taskRecordsKey: string(recs)}})
		for _, ts := range p.tasks {
			for ri, t := range ts.trees {
				if err := sw.WriteTree(t, ri); err != nil {
					return err
				}
			}
		}
		if err := sw.Close(); err != nil {
			return err
		}
		e.Trees, e.Rows, e.TextBytes = sw.Trees(), sw.Rows(), sw.TextBytes()
		return nil
	}, before)
	if err != nil {
		return e, fmt.Errorf("shard %d: %w", p.index, err)
	}
	if opts.hook != nil {
		opts.hook("renamed", p.index)
	}
	info, err := shard.InspectShard(path)
	if err != nil {
		return e, fmt.Errorf("reopen written shard: %w", err)
	}
	if info.Rows != e.Rows {
		return e, fmt.Errorf("shard %s: footer says %d rows, wrote %d", path, info.Rows, e.Rows)
	}
	e.Bytes, e.UncompressedBytes = info.Bytes, info.UncompressedBytes
	for _, ts := range p.tasks {
		ts.trees = nil // written: free the memory
	}
	w.man.Shards = append(w.man.Shards, e)
	if err := w.WriteManifest(); err != nil {
		return e, fmt.Errorf("shard %d: %w", p.index, err)
	}
	if opts.hook != nil {
		opts.hook("manifest", p.index)
	}
	return e, nil
}

// WriteManifest rewrites the manifest with the time breakdown so far.
func (w *shardWriter) WriteManifest() error {
	w.man.LastSession = w.m.snapshot()
	w.man.Time = w.m.total()
	return manifest.WriteManifest(w.opts.create, w.mpath, w.man)
}

// adoptShard checks a complete shard file that the manifest does not list
// and describes it.
func adoptShard(path string, p *shardPlan, info shard.ShardInfo) (manifest.ShardEntry, error) {
	e := manifest.ShardEntry{Index: p.index, File: manifest.ShardFileName(p.index), FirstTask: p.first, EndTask: p.end,
		Rows: info.Rows, Bytes: info.Bytes, UncompressedBytes: info.UncompressedBytes}
	if info.Schema != shard.SchemaVersion {
		return e, fmt.Errorf("schema %q, want %q", info.Schema, shard.SchemaVersion)
	}
	recs, ok, err := shard.Metadata(path, taskRecordsKey)
	if err != nil {
		return e, err
	}
	if ok {
		if err := json.Unmarshal([]byte(recs), &e.Tasks); err != nil {
			return e, fmt.Errorf("shard %s: task records: %w", path, err)
		}
	}
	err = shard.ScanRows(path, func(rows []shard.NodeRow) error {
		for i := range rows {
			if rows[i].NodeID == 0 {
				e.Trees++
			}
			e.TextBytes += shard.RowTextBytes(&rows[i])
		}
		return nil
	})
	return e, err
}
