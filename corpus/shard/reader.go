package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/parquet-go/parquet-go"

	"triage/corpus"
)

// ShardGlob matches complete shard files in a corpus folder; temporary
// files (".part-*.parquet.tmp") never match.
const ShardGlob = "part-*.parquet"

// ProjectedRow is the column projection (tree_id, depth, pass_rate) used by
// quick scans and the read benchmark; only those columns are decoded.
type ProjectedRow struct {
	TreeID   string  `parquet:"tree_id"`
	Depth    int32   `parquet:"depth"`
	PassRate float64 `parquet:"pass_rate"`
}

// ShardInfo describes one shard file from its footer.
type ShardInfo struct {
	Path              string `json:"path"`
	Rows              int64  `json:"rows"`
	RowGroups         int    `json:"row_groups"`
	Bytes             int64  `json:"bytes"`
	UncompressedBytes int64  `json:"uncompressed_bytes"`
	Schema            string `json:"schema"`
}

// ListShards returns the shard files of the corpus folders, folder by folder
// in the order given, files sorted by name, each path once.
func ListShards(dirs ...string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("corpus folder: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("corpus folder %s: not a directory", d)
		}
		files, err := filepath.Glob(filepath.Join(d, ShardGlob))
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", d, err)
		}
		sort.Strings(files)
		for _, f := range files {
			abs, err := filepath.Abs(f)
			if err != nil {
				abs = f
			}
			if !seen[abs] {
				seen[abs] = true
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// folderSource is the source of the trees of a corpus folder whose rows
// name none (shards written before the source column): the task set its
// manifests name, when they all name one set by name ("bundled", "mbpp"),
// not by a file path; SourceUnknown otherwise.
func folderSource(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "manifest*.json"))
	src := ""
	for _, f := range files {
		s, err := manifestTasksSource(f)
		if err != nil {
			continue
		}
		if s == "" || strings.ContainsAny(s, `/\.`) || (src != "" && s != src) {
			return corpus.SourceUnknown
		}
		src = s
	}
	if src == "" {
		return corpus.SourceUnknown
	}
	return src
}

// manifestTasksSource reads the task source a manifest file names (its
// settings' tasks_source). It decodes that field alone: the manifest
// package, which reads the whole manifest, builds on this one.
func manifestTasksSource(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var m struct {
		Schema   string `json:"schema"`
		Settings struct {
			TasksSource string `json:"tasks_source"`
		} `json:"settings"`
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil {
		return "", err
	}
	if m.Schema != SchemaVersion {
		return "", fmt.Errorf("manifest %s: schema %q, want %q", path, m.Schema, SchemaVersion)
	}
	return m.Settings.TasksSource, nil
}

// hasSourceColumn reports whether a shard has the source column (shards
// written before it was added do not).
func hasSourceColumn(pf *parquet.File) bool {
	_, ok := pf.Schema().Lookup("source")
	return ok
}

// shardSources maps each shard of the corpus folders to its folder's
// folderSource (the first folder that lists it).
func shardSources(dirs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, d := range dirs {
		files, err := ListShards(d)
		if err != nil {
			return nil, err
		}
		src := ""
		for _, f := range files {
			if _, ok := out[f]; !ok {
				if src == "" {
					src = folderSource(d)
				}
				out[f] = src
			}
		}
	}
	return out, nil
}

// ErrCorruptShard marks a shard file that cannot be decoded: not Parquet,
// truncated, or with damaged pages. It is bad input (an InputError), not a
// failed job.
var ErrCorruptShard error = &corpus.InputError{Err: errors.New("not a readable corpus shard")}

// corruptShard wraps a decoding error of the shard at path.
func corruptShard(path string, err any) error {
	return fmt.Errorf("shard %s: %w: %v", path, ErrCorruptShard, err)
}

// Metadata returns the value of key in the key/value metadata of the shard
// at path, and whether it has one.
func Metadata(path, key string) (string, bool, error) {
	pf, f, err := openShard(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	v, ok := pf.Lookup(key)
	return v, ok, nil
}

// openShard opens a Parquet file with parquet.OpenFile, which returns an
// error on a truncated or foreign file; a panic inside it on a corrupt
// footer is turned into an error too.
func openShard(path string) (pf *parquet.File, file *os.File, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open shard: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat shard: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			f.Close()
			pf, file, err = nil, nil, corruptShard(path, r)
		}
	}()
	pf, err = parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, corruptShard(path, err)
	}
	return pf, f, nil
}

// InspectShard reads a shard's footer.
func InspectShard(path string) (ShardInfo, error) {
	pf, f, err := openShard(path)
	if err != nil {
		return ShardInfo{}, err
	}
	defer f.Close()
	info := ShardInfo{Path: path, Rows: pf.NumRows(), RowGroups: len(pf.RowGroups()), Bytes: pf.Size()}
	info.Schema, _ = pf.Lookup("triage.schema")
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			info.UncompressedBytes += c.MetaData.TotalUncompressedSize
		}
	}
	return info, nil
}

// withShard opens a shard file and calls fn with it; decoding panics of a
// corrupt file become errors.
func withShard(path string, fn func(pf *parquet.File) error) (err error) {
	pf, f, err := openShard(path)
	if err != nil {
		return err
	}
	defer f.Close()
	defer func() {
		if r := recover(); r != nil {
			err = corruptShard(path, r)
		}
	}()
	return fn(pf)
}

// scanFile reads every row of a Parquet file as T (a projection of NodeRow)
// in batches and calls fn with each batch; the batch slice is reused.
func scanFile[T any](path string, batch int, fn func([]T) error) error {
	return withShard(path, func(pf *parquet.File) error {
		r := parquet.NewGenericReader[T](pf)
		defer r.Close()
		buf := make([]T, batch)
		for {
			n, rerr := r.Read(buf)
			if n > 0 {
				if err := fn(buf[:n]); err != nil {
					return err
				}
			}
			if errors.Is(rerr, io.EOF) {
				return nil
			}
			if rerr != nil {
				return corruptShard(path, rerr)
			}
			clear(buf)
		}
	})
}

// ScanRows calls fn with batches of full rows of one shard file.
func ScanRows(path string, fn func([]NodeRow) error) error {
	return scanFile(path, 256, fn)
}

// ScanProjected calls fn with batches of the (tree_id, depth, pass_rate)
// projection of one shard file.
func ScanProjected(path string, fn func([]ProjectedRow) error) error {
	return scanFile(path, 4096, fn)
}

// ScanTrees calls fn once per tree with all of that tree's whole rows, over
// the union of the corpus folders: a tree id seen in an earlier file is
// skipped, so overlapping shard folders count each tree once. The rows of a
// shard written before the source column get their folder's source
// (folderSource). The rows passed to fn are not reused.
func ScanTrees(dirs []string, fn func(rows []NodeRow) error) error {
	files, err := ListShards(dirs...)
	if err != nil {
		return err
	}
	sources, err := shardSources(dirs)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, path := range files {
		var inFile []string
		err := withShard(path, func(pf *parquet.File) error {
			old := !hasSourceColumn(pf)
			return groupTrees(pf, path, wholeBatch, func(r *NodeRow) string { return r.TreeID },
				func(_ int64, rows []NodeRow) error {
					if seen[rows[0].TreeID] {
						return nil
					}
					inFile = append(inFile, rows[0].TreeID)
					rows = slices.Clone(rows)
					for i := range rows {
						if old {
							rows[i].Source = sources[path]
						}
					}
					return fn(rows)
				})
		})
		if err != nil {
			return err
		}
		for _, id := range inFile {
			seen[id] = true
		}
	}
	return nil
}

// LoadTrees reads every tree of the corpus folders' shards (the union of the
// folders, each tree id once), sorted by tree id, with every column
// decoded. It holds the whole corpus in memory: for small corpora and
// tests; evaluation and statistics stream with OpenTrees. A shard holding a
// partial tree is an error.
func LoadTrees(dirs ...string) ([]*corpus.Tree, error) {
	r, err := OpenTrees(dirs, ReadOptions{Columns: AllColumns})
	if err != nil {
		return nil, fmt.Errorf("load trees: %w", err)
	}
	defer r.Close()
	var trees []*corpus.Tree
	for {
		t, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("load trees: %w", err)
		}
		trees = append(trees, t)
	}
	sort.Slice(trees, func(i, j int) bool { return trees[i].ID < trees[j].ID })
	return trees, nil
}
