package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

// BuildSettings are the settings that determine a corpus's rows. A resumed
// build must use the same settings.
type BuildSettings struct {
	K             int    `json:"k"`
	D             int    `json:"depth"`
	Roots         int    `json:"roots"`
	Proposer      string `json:"proposer"`
	Model         string `json:"model"`
	Seed          uint64 `json:"seed"`
	TasksSource   string `json:"tasks_source"`
	TasksSHA256   string `json:"tasks_sha256"`
	NumTasks      int    `json:"num_tasks"`
	TasksPerShard int    `json:"tasks_per_shard"`
	ShardIndex    int    `json:"shard_index"`
	ShardCount    int    `json:"shard_count"`
	RowsPerGroup  int64  `json:"rows_per_group"`
}

// ShardEntry records one complete shard file.
type ShardEntry struct {
	Index             int    `json:"index"`
	File              string `json:"file"`
	FirstTask         int    `json:"first_task"` // index into the task list
	EndTask           int    `json:"end_task"`   // exclusive
	Trees             int    `json:"trees"`
	Rows              int64  `json:"rows"`
	Bytes             int64  `json:"bytes"`
	UncompressedBytes int64  `json:"uncompressed_bytes"`
	TextBytes         int64  `json:"text_bytes"`
}

// Manifest lists a build's complete shards with its settings and the
// versions that wrote it. It is rewritten atomically after every shard.
type Manifest struct {
	Schema   string            `json:"schema"`
	Settings BuildSettings     `json:"settings"`
	Versions map[string]string `json:"versions"`
	Shards   []ShardEntry      `json:"shards"`
	// Planned is the number of shards this build (this i/n slice) owns;
	// Complete is true once all of them are listed.
	Planned  int   `json:"planned_shards"`
	Complete bool  `json:"complete"`
	Rows     int64 `json:"rows"`
	Trees    int   `json:"trees"`
	// Sources lists the folders a merged corpus was made from.
	Sources []string `json:"sources,omitempty"`
}

// ManifestName returns the manifest file name of shard slice i of n:
// "manifest.json" for a whole build, "manifest-i-of-n.json" for a slice, so
// n machines can share one output folder.
func ManifestName(i, n int) string {
	if n <= 1 {
		return "manifest.json"
	}
	return fmt.Sprintf("manifest-%d-of-%d.json", i, n)
}

// ShardFileName returns the file name of shard index.
func ShardFileName(index int) string { return fmt.Sprintf("part-%05d.parquet", index) }

// ReadManifest reads a manifest file.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if m.Schema != SchemaVersion {
		return nil, fmt.Errorf("manifest %s: schema %q, want %q", path, m.Schema, SchemaVersion)
	}
	return &m, nil
}

// writeManifest writes m atomically (temporary file, sync, rename).
func writeManifest(create createFunc, path string, m *Manifest) error {
	sort.Slice(m.Shards, func(i, j int) bool { return m.Shards[i].Index < m.Shards[j].Index })
	m.Rows, m.Trees = 0, 0
	for _, s := range m.Shards {
		m.Rows += s.Rows
		m.Trees += s.Trees
	}
	m.Complete = len(m.Shards) == m.Planned
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	b = append(b, '\n')
	return writeAtomic(create, path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}, nil)
}

// buildVersions names the program and library versions that write a corpus.
func buildVersions() map[string]string {
	v := map[string]string{"go": runtime.Version(), "schema": SchemaVersion}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v["triage"] = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v["triage_revision"] = s.Value
			}
		}
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/parquet-go/parquet-go", "github.com/klauspost/compress":
				v[strings.TrimPrefix(d.Path, "github.com/")] = d.Version
			}
		}
	}
	return v
}

// ErrOutputExists is returned when the output folder already holds a build
// and resuming was not asked for.
var ErrOutputExists = errors.New("output folder already holds a corpus build")

// ErrSettingsMismatch is returned when a resumed build's settings differ from
// those in the manifest.
var ErrSettingsMismatch = errors.New("build settings differ from the manifest's")
