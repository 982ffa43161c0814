package shard

import (
	"fmt"
	"os"

	"triage/corpus"
)

// WriteShardFile writes trees (each as root 0 of its task) to one Parquet
// shard at path: a small corpus in one call, for tests and tools that make
// trees in memory. A builder's shards go through its own writer.
func WriteShardFile(path string, trees []*corpus.Tree) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write shard: %w", err)
	}
	sw := NewShardWriter(fh, WriterOptions{})
	for _, t := range trees {
		if err := sw.WriteTree(t, 0); err != nil {
			fh.Close()
			return fmt.Errorf("write shard %s: tree %s: %w", path, t.ID, err)
		}
	}
	if err := sw.Close(); err != nil {
		fh.Close()
		return fmt.Errorf("write shard %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("write shard %s: %w", path, err)
	}
	return nil
}
