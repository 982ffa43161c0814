package manifest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"triage/corpus"
	"triage/corpus/shard"
)

// DefaultMergeRowsPerShard bounds the shards a merge writes.
const DefaultMergeRowsPerShard = 200_000

// Merge writes the union of the corpus folders (each tree id once, the
// first folder's copy winning) into out as new shards of whole trees, at
// most rowsPerShard rows each (0 = DefaultMergeRowsPerShard), with a
// manifest. out must not exist or be empty. Every input manifest must
// hold the same settings but for the slice and layout fields (slice i/n,
// tasks per shard, rows per group), which the merged manifest resets to
// 0/1: trees built with other settings are another corpus, read beside
// this one rather than merged into it (ErrMergeSettings). Slices of an i/n
// build that no input holds are named in the manifest's MissingSlices.
func Merge(out string, dirs []string, rowsPerShard int64) (*Manifest, error) {
	return MergeSplits(out, dirs, rowsPerShard, nil)
}

// MergeSplits is Merge keeping only the trees of the given splits (nil:
// every tree), recorded in the manifest's Splits: a slice of a corpus, such
// as its test split, to ship or read apart.
func MergeSplits(out string, dirs []string, rowsPerShard int64, splits []string) (*Manifest, error) {
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
	man := &Manifest{Schema: shard.SchemaVersion, Versions: BuildVersions(), Sources: dirs, Splits: splits}
	for _, d := range dirs {
		if a, _ := filepath.Abs(d); a == absOut {
			return nil, fmt.Errorf("merge: output %s is also an input", out)
		}
	}
	settings, missing, prot, err := mergeSettings(dirs)
	if err != nil {
		return nil, err
	}
	if settings != nil {
		man.Settings = *settings
	}
	man.MissingSlices, man.Protections = missing, prot
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	mw := &mergeWriter{out: out, man: man}
	err = shard.ScanTrees(dirs, func(rows []shard.NodeRow) error {
		if int(rows[0].TreeNodes) != len(rows) {
			return fmt.Errorf("tree %s: %d rows, want %d", rows[0].TreeID, len(rows), rows[0].TreeNodes)
		}
		if splits != nil && !slices.Contains(splits, rows[0].Split) {
			return nil
		}
		if mw.rows > 0 && mw.rows+int64(len(rows)) > rowsPerShard {
			if err := mw.flush(); err != nil {
				return err
			}
		}
		mw.pending = append(mw.pending, rows)
		mw.rows += int64(len(rows))
		return nil
	})
	if err == nil {
		err = mw.flush()
	}
	if err != nil {
		return man, fmt.Errorf("merge: %w", err)
	}
	man.Planned = len(man.Shards)
	if err := WriteManifest(nil, filepath.Join(out, ManifestName(0, 1)), man); err != nil {
		return man, fmt.Errorf("merge: %w", err)
	}
	return man, nil
}

// mergeWriter writes Merge's shards: the trees pending (rows of them)
// become the next shard, listed in man, whose manifest is rewritten.
type mergeWriter struct {
	out     string
	man     *Manifest
	pending [][]shard.NodeRow
	rows    int64
}

// flush writes the pending trees as the next shard, if any, and the
// manifest with it.
func (mw *mergeWriter) flush() error {
	if len(mw.pending) == 0 {
		return nil
	}
	man := mw.man
	idx := len(man.Shards)
	e := ShardEntry{Index: idx, File: ShardFileName(idx), FirstTask: -1, EndTask: -1}
	path := filepath.Join(mw.out, e.File)
	err := shard.WriteAtomic(nil, path, func(w io.Writer) error {
		sw := shard.NewShardWriter(w, shard.WriterOptions{RowsPerGroup: man.Settings.RowsPerGroup})
		for _, rows := range mw.pending {
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
	info, err := shard.InspectShard(path)
	if err != nil {
		return err
	}
	e.Bytes, e.UncompressedBytes = info.Bytes, info.UncompressedBytes
	man.Shards = append(man.Shards, e)
	man.Planned = len(man.Shards)
	mw.pending, mw.rows = nil, 0
	return WriteManifest(nil, filepath.Join(mw.out, ManifestName(0, 1)), man)
}

// ErrMergeSettings is returned by Merge when its inputs were built with
// different settings. It is bad input (an InputError).
var ErrMergeSettings error = &corpus.InputError{Err: errors.New("inputs were built with different settings")}

// mergeSettings reads the manifests of dirs: their common settings (slice
// and layout fields reset; nil when no input has a manifest), the slices
// of an i/n build that none of them holds ("3, 7 of 25"; empty when some
// input covers every task), and the sandbox protections every manifest
// records: what every merged tree was built under (none when some manifest
// records none, built before the record or by an executor without them:
// the merge cannot vouch for its trees).
func mergeSettings(dirs []string) (*BuildSettings, string, []string, error) {
	var first *BuildSettings
	var firstFile string
	var layout BuildSettings       // the first manifest's, whose row groups the merge keeps
	held := map[int]map[int]bool{} // slice count → indices held
	whole := false
	var prot CommonProtections
	unvouched := false
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "manifest*.json"))
		sort.Strings(files)
		for _, f := range files {
			m, err := ReadManifest(f)
			if err != nil {
				return nil, "", nil, fmt.Errorf("merge: %w", err)
			}
			if len(m.Protections) == 0 {
				unvouched = true
			} else {
				prot.Add(m.Protections)
			}
			st := m.Settings
			if first == nil {
				layout = st
			}
			if st.ShardCount <= 1 {
				whole = true
			} else {
				if held[st.ShardCount] == nil {
					held[st.ShardCount] = map[int]bool{}
				}
				held[st.ShardCount][st.ShardIndex] = true
			}
			st.ShardIndex, st.ShardCount, st.TasksPerShard, st.RowsPerGroup = 0, 1, 0, 0
			if first == nil {
				first, firstFile = &st, f
				continue
			}
			if diff := DiffSettings(*first, st); len(diff) > 0 {
				return nil, "", nil, fmt.Errorf("merge: %s and %s: %w (%s); merge joins the slices of one build, and readers take several folders side by side",
					firstFile, f, ErrMergeSettings, strings.Join(diff, "; "))
			}
		}
	}
	if first == nil {
		return nil, "", nil, nil
	}
	var protections []string
	if !unvouched {
		protections = prot.Sorted()
	}
	out := *first
	out.RowsPerGroup, out.TasksPerShard = layout.RowsPerGroup, layout.TasksPerShard
	if whole || len(held) == 0 {
		return &out, "", protections, nil
	}
	var missing []string
	for n, idx := range held {
		var gaps []string
		for i := 0; i < n; i++ {
			if !idx[i] {
				gaps = append(gaps, strconv.Itoa(i))
			}
		}
		if len(gaps) == 0 {
			return &out, "", protections, nil
		}
		missing = append(missing, strings.Join(gaps, ", ")+" of "+strconv.Itoa(n))
	}
	sort.Strings(missing)
	return &out, strings.Join(missing, "; "), protections, nil
}
