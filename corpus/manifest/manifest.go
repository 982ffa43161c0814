package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"triage/corpus"
	"triage/corpus/limits"
	"triage/corpus/shard"
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
	// The settings below change verdicts: each task's time limit comes from
	// Limits and its reference's time over ReferenceRuns runs; Coverage
	// says whether programs that get proposals ran with per-test coverage;
	// Executor holds the executor's own limits (memory, processes, output,
	// interpreter).
	Limits        limits.TimeLimits `json:"time_limits"`
	ReferenceRuns int               `json:"reference_runs"`
	Coverage      bool              `json:"coverage"`
	Executor      map[string]string `json:"executor,omitempty"`
}

// DiffSettings lists the settings in which now differs from old (the
// manifest's), one "name: manifest X, now Y" each, names as in the
// manifest's JSON (e.g. "time_limits.floor"). The task file's name is not a
// setting: the same tasks may be named by another path, and their digest
// decides.
func DiffSettings(old, now BuildSettings) []string {
	a, b := flatSettings(old), flatSettings(now)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	delete(keys, "tasks_source")
	var out []string
	for k := range keys {
		x, okx := a[k]
		y, oky := b[k]
		if okx && oky && x == y {
			continue
		}
		if !okx {
			x = "(unset)"
		}
		if !oky {
			y = "(unset)"
		}
		out = append(out, fmt.Sprintf("%s: manifest %s, now %s", k, x, y))
	}
	sort.Strings(out)
	return out
}

// flatSettings maps each leaf of s's JSON to its JSON text, keys joined by dots.
func flatSettings(s BuildSettings) map[string]string {
	b, _ := json.Marshal(s)
	var v any
	_ = json.Unmarshal(b, &v)
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				if prefix != "" {
					k = prefix + "." + k
				}
				walk(k, x)
			}
			return
		}
		j, _ := json.Marshal(v)
		out[prefix] = string(j)
	}
	walk("", v)
	return out
}

// TaskRecord is what a build did with one task of a shard: its
// reference's time (with split limits, its program's and the harness's
// parts), the time limit it got, and its trees, or why it was left out.
type TaskRecord struct {
	Index       int     `json:"index"` // in the task list
	TaskID      string  `json:"task_id"`
	ReferenceMS float64 `json:"reference_ms"`
	ProgramMS   float64 `json:"reference_program_ms,omitempty"`
	HarnessMS   float64 `json:"reference_harness_ms,omitempty"`
	// OwnMS is the part of ProgramMS in the program's own code, where the
	// reference's run counted it (limits.RefTime.OwnMS).
	OwnMS   float64 `json:"reference_program_own_ms,omitempty"`
	LimitMS float64 `json:"limit_ms"`
	// ProgramLimitMS is the budget of the program's own code within
	// LimitMS (TaskCheck.ProgramLimit; zero: none).
	ProgramLimitMS float64 `json:"program_limit_ms,omitempty"`
	Trees          int     `json:"trees"`
	Skipped        string  `json:"skipped,omitempty"`
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
	// Tasks records each task of the shard (limits, trees, skip reasons).
	Tasks []TaskRecord `json:"tasks,omitempty"`
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
	// Sources lists the folders a merged corpus was made from;
	// MissingSlices, the slices of their i/n build that none of them held
	// ("3, 7 of 25"): a merged corpus without them lacks those tasks.
	Sources       []string `json:"sources,omitempty"`
	MissingSlices string   `json:"missing_slices,omitempty"`
	// Splits are the only splits a merge kept (empty: every tree).
	Splits []string `json:"splits,omitempty"`
	// Time says where the build's time went, summed over its sessions
	// (resumes); it is rewritten with every manifest.
	Time *Breakdown `json:"time,omitempty"`
	// LastSession is the breakdown of the latest session alone.
	LastSession *Breakdown `json:"last_session,omitempty"`
	// Protections are the executor's protections in force in the latest
	// session (BuildOptions.Protections).
	Protections []string `json:"protections,omitempty"`
}

// CommonProtections gathers the sandbox protections several manifests all
// recorded (Manifest.Protections).
type CommonProtections struct {
	list []string
	seen bool
}

// Add keeps the protections that p has too (all of p for the first).
func (c *CommonProtections) Add(p []string) {
	if !c.seen {
		c.list, c.seen = slices.Clone(p), true
		return
	}
	c.list = slices.DeleteFunc(c.list, func(x string) bool { return !slices.Contains(p, x) })
}

// Sorted returns the common protections in order (nil when none).
func (c *CommonProtections) Sorted() []string {
	slices.Sort(c.list)
	return c.list
}

// SkippedTasks lists the tasks the build left out, in task order.
func (m *Manifest) SkippedTasks() []TaskRecord {
	var out []TaskRecord
	for _, s := range m.Shards {
		for _, t := range s.Tasks {
			if t.Skipped != "" {
				out = append(out, t)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
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
	if m.Schema != shard.SchemaVersion {
		return nil, fmt.Errorf("manifest %s: schema %q, want %q", path, m.Schema, shard.SchemaVersion)
	}
	return &m, nil
}

// WriteManifest writes m atomically (temporary file, sync, rename).
func WriteManifest(create shard.CreateFunc, path string, m *Manifest) error {
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
	return shard.WriteAtomic(create, path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}, nil)
}

// BuildVersions names the program and library versions that write a corpus.
func BuildVersions() map[string]string {
	v := map[string]string{"go": runtime.Version(), "schema": shard.SchemaVersion}
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
// and resuming was not asked for. It is bad input (an InputError).
var ErrOutputExists error = &corpus.InputError{Err: errors.New("output folder already holds a corpus build")}

// ErrSettingsMismatch is returned when a resumed build's settings differ from
// those in the manifest. It is bad input (an InputError).
var ErrSettingsMismatch error = &corpus.InputError{Err: errors.New("build settings differ from the manifest's")}

// WriteSkipped lists the tasks a build left out.
func WriteSkipped(w io.Writer, skipped []TaskRecord) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(w, "%d tasks left out:\n", len(skipped))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range skipped {
		fmt.Fprintf(tw, "  %s\t%s\n", t.TaskID, t.Skipped)
	}
	tw.Flush()
}
