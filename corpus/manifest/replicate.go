package manifest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"triage/corpus"
	"triage/corpus/shard"
)

// ReplicateOptions configure Replicate.
type ReplicateOptions struct {
	// Copies of every source tree (>= 1).
	Copies int
	// Shards is the number of shard files written (default: one per
	// copy, at most 64); copy c goes to shard c mod Shards.
	Shards int
	// RowsPerGroup of the written shards (default DefaultRowsPerGroup).
	RowsPerGroup int64
	// Split, when set, puts every copy in this split (so that one split
	// holds the whole replica); "" keeps each tree's split.
	Split string
	// Workers writing shards concurrently (<= 0: one per CPU); each holds
	// a Parquet writer's buffers (tens of MiB).
	Workers int
}

// ReplicaSuffix returns what Replicate appends to the tree and task ids of
// copy c.
func ReplicaSuffix(c int) string { return fmt.Sprintf("~c%05d", c) }

// Replication is what Replicate wrote.
type Replication struct {
	Shards int   `json:"shards"`
	Trees  int   `json:"trees"`
	Rows   int64 `json:"rows"`
	Bytes  int64 `json:"bytes"`
}

// Validate checks opts, the output folder out (the field Out) and the
// input folders src (Corpus) as bad input naming the field.
func (opts ReplicateOptions) Validate(out string, src []string) error {
	if out == "" || opts.Copies < 1 {
		return corpus.Invalid("{Out} and {Copies} >= 1 are required")
	}
	if opts.Shards < 0 || opts.RowsPerGroup < 1 {
		return corpus.Invalid("{Shards} must be ≥ 0 and {RowsPerGroup} ≥ 1")
	}
	if opts.Split != "" {
		if err := corpus.CheckSplit(opts.Split); err != nil {
			return err
		}
	}
	return shard.CheckDirs(src)
}

// Replicate makes a large corpus from a small one, for scale tests and
// benchmarks: it writes opts.Copies copies of every tree of the corpus
// folders src into the new folder out, copy c of a tree under the tree id
// and task id suffixed with ReplicaSuffix(c) (so every copy is a new tree of
// a new task, in the same split unless opts.Split says otherwise), spread over opts.Shards shard files.
// Each shard streams the source once; opts.Workers shards are written at a
// time. No manifest is written.
func Replicate(ctx context.Context, out string, src []string, opts ReplicateOptions) (*Replication, error) {
	if opts.Copies < 1 {
		return nil, fmt.Errorf("replicate: %d copies, want at least 1", opts.Copies)
	}
	if opts.Shards <= 0 {
		opts.Shards = min(opts.Copies, 64)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("replicate: %s: %w (not empty)", out, ErrOutputExists)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("replicate: %w", err)
	}
	shards := make([]Replication, opts.Shards)
	errs := make([]error, opts.Shards)
	// Every shard is attempted and every failure reported (joined in shard
	// order), so the goroutines keep their errors rather than return them.
	var g errgroup.Group
	g.SetLimit(opts.Workers)
	for s := range opts.Shards {
		g.Go(func() error {
			shards[s], errs[s] = writeReplicaShard(ctx, filepath.Join(out, ShardFileName(s)), src, s, opts)
			return nil
		})
	}
	_ = g.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("replicate: %w", err)
	}
	rep := &Replication{Shards: opts.Shards}
	for _, sh := range shards {
		rep.Trees += sh.Trees
		rep.Rows += sh.Rows
		rep.Bytes += sh.Bytes
	}
	return rep, nil
}

// writeReplicaShard writes shard s: copies s, s+Shards, … of every source
// tree, in source order.
func writeReplicaShard(ctx context.Context, path string, src []string, s int, opts ReplicateOptions) (Replication, error) {
	var rep Replication
	err := shard.WriteAtomic(nil, path, func(f io.Writer) error {
		sw := shard.NewShardWriter(f, shard.WriterOptions{RowsPerGroup: opts.RowsPerGroup})
		err := shard.ScanTrees(src, func(rows []shard.NodeRow) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			for c := s; c < opts.Copies; c += opts.Shards {
				suffix := ReplicaSuffix(c)
				cp := slices.Clone(rows)
				for i := range cp {
					cp[i].TreeID += suffix
					cp[i].TaskID += suffix
					if opts.Split != "" {
						cp[i].Split = opts.Split
					}
				}
				if err := sw.WriteRows(cp); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := sw.Close(); err != nil {
			return err
		}
		rep.Trees, rep.Rows = sw.Trees(), sw.Rows()
		return nil
	}, nil)
	if err != nil {
		return rep, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return rep, err
	}
	rep.Shards, rep.Bytes = 1, st.Size()
	return rep, nil
}
