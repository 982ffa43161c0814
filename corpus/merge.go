package corpus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// DefaultMergeRowsPerShard bounds the shards a merge writes.
const DefaultMergeRowsPerShard = 200_000

// Merge writes the union of the corpus folders (each tree id once, the
// first folder's copy winning) into out as new shards of whole trees, at
// most rowsPerShard rows each (0 = DefaultMergeRowsPerShard), with a
// manifest. out must not exist or be empty. Settings are taken from the
// first input manifest found, with the slice fields reset to 0/1.
func Merge(out string, dirs []string, rowsPerShard int64) (*Manifest, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge: no input folders")
	}
	if rowsPerShard <= 0 {
		rowsPerShard = DefaultMergeRowsPerShard
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("merge: %s: %w (not empty)", out, ErrOutputExists)
	}
	absOut, _ := filepath.Abs(out)
	man := &Manifest{Schema: SchemaVersion, Versions: buildVersions(), Sources: dirs}
	for _, d := range dirs {
		if a, _ := filepath.Abs(d); a == absOut {
			return nil, fmt.Errorf("merge: output %s is also an input", out)
		}
		files, _ := filepath.Glob(filepath.Join(d, "manifest*.json"))
		sort.Strings(files)
		for _, f := range files {
			if m, err := ReadManifest(f); err == nil && man.Settings.K == 0 {
				man.Settings = m.Settings
				man.Settings.ShardIndex, man.Settings.ShardCount = 0, 1
			}
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	var pending [][]NodeRow
	var pendingRows int64
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		idx := len(man.Shards)
		e := ShardEntry{Index: idx, File: ShardFileName(idx), FirstTask: -1, EndTask: -1}
		path := filepath.Join(out, e.File)
		err := writeAtomic(nil, path, func(w io.Writer) error {
			sw := NewShardWriter(w, WriterOptions{RowsPerGroup: man.Settings.RowsPerGroup})
			for _, rows := range pending {
				if err := sw.WriteRows(rows); err != nil {
					return err
				}
			}
			if err := sw.Close(); err != nil {
				return err
			}
			e.Trees, e.Rows, e.TextBytes = sw.Trees(), sw.Rows(), sw.TextBytes()
			return nil
		}, nil)
		if err != nil {
			return err
		}
		info, err := InspectShard(path)
		if err != nil {
			return err
		}
		e.Bytes, e.UncompressedBytes = info.Bytes, info.UncompressedBytes
		man.Shards = append(man.Shards, e)
		man.Planned = len(man.Shards)
		pending, pendingRows = nil, 0
		return writeManifest(nil, filepath.Join(out, ManifestName(0, 1)), man)
	}
	err := ScanTrees(dirs, func(rows []NodeRow) error {
		if int(rows[0].TreeNodes) != len(rows) {
			return fmt.Errorf("tree %s: %d rows, want %d", rows[0].TreeID, len(rows), rows[0].TreeNodes)
		}
		if pendingRows > 0 && pendingRows+int64(len(rows)) > rowsPerShard {
			if err := flush(); err != nil {
				return err
			}
		}
		pending = append(pending, rows)
		pendingRows += int64(len(rows))
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return man, fmt.Errorf("merge: %w", err)
	}
	man.Planned = len(man.Shards)
	if err := writeManifest(nil, filepath.Join(out, ManifestName(0, 1)), man); err != nil {
		return man, fmt.Errorf("merge: %w", err)
	}
	return man, nil
}
