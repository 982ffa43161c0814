package corpus

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// nodeRowV1 is NodeRow as written before the source column.
type nodeRowV1 struct {
	TaskID          string    `parquet:"task_id,dict"`
	TreeID          string    `parquet:"tree_id,dict"`
	Split           string    `parquet:"split,dict"`
	RootIndex       int32     `parquet:"root_index"`
	K               int32     `parquet:"k"`
	DepthLimit      int32     `parquet:"depth_limit"`
	TreeNodes       int32     `parquet:"tree_nodes"`
	Proposer        string    `parquet:"proposer,dict"`
	Model           string    `parquet:"model,dict"`
	NodeID          int32     `parquet:"node_id"`
	ParentID        int32     `parquet:"parent_id"`
	EdgeID          int32     `parquet:"edge_id"`
	Depth           int32     `parquet:"depth"`
	Program         string    `parquet:"program"`
	ProgramSHA      string    `parquet:"program_sha256"`
	Status          string    `parquet:"status,dict"`
	Tests           []TestRow `parquet:"tests,list"`
	PassRate        float64   `parquet:"pass_rate"`
	FailedFrac      float64   `parquet:"failed_frac"`
	Feedback        string    `parquet:"feedback"`
	ExecMS          float64   `parquet:"exec_duration_ms"`
	Solved          bool      `parquet:"solved"`
	Diagnosis       string    `parquet:"diagnosis"`
	Edits           []EditRow `parquet:"edits,list"`
	ProposeFailed   bool      `parquet:"propose_failed"`
	ReviseFailed    bool      `parquet:"revise_failed"`
	Raw             string    `parquet:"raw"`
	ReviseTokens    int32     `parquet:"revise_tokens"`
	ProposeTokens   int32     `parquet:"propose_tokens"`
	OutputTokens    int32     `parquet:"output_tokens"`
	TokensEstimated bool      `parquet:"tokens_estimated"`
}

func TestSourceColumn(t *testing.T) {
	tasks := fakeTasks(6)
	for i := range 3 {
		tasks[i].Source = "mbpp"
	}
	dir := t.TempDir()
	if _, err := BuildCorpus(context.Background(), tasks, buildOpts(dir, &fakeProposer{}, &fakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	trees, err := LoadTrees(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := range tasks {
		want[tasks[i].ID] = SourceOf(&tasks[i])
	}
	for _, tr := range trees {
		if tr.Source != want[tr.TaskID] {
			t.Errorf("tree %s: source %q, want %q", tr.ID, tr.Source, want[tr.TaskID])
		}
	}
	s, err := ComputeStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Sources["mbpp"] == nil || s.Sources["mbpp"].Tasks != 3 || s.Sources[SourceUnknown] == nil || s.Sources[SourceUnknown].Tasks != 3 {
		t.Errorf("sources = %+v, want 3 mbpp and 3 unknown tasks", s.Sources)
	}
	if s.Sources["mbpp"].Trees+s.Sources[SourceUnknown].Trees != s.Trees {
		t.Errorf("source trees do not add up to %d", s.Trees)
	}
	// The source is a label: the task digest (resume check) ignores it.
	plain := fakeTasks(6)
	if tasksDigest(plain) != tasksDigest(tasks) {
		t.Error("task digest depends on the source")
	}
}

// TestShardsWithoutSource reads shards written before the source column:
// their trees take the source their folder's manifests name.
func TestShardsWithoutSource(t *testing.T) {
	built := t.TempDir()
	if _, err := BuildCorpus(context.Background(), fakeTasks(3), buildOpts(built, &fakeProposer{}, &fakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	rows := allRows(t, built)
	old := make([]nodeRowV1, len(rows))
	for i, r := range rows {
		old[i] = nodeRowV1{r.TaskID, r.TreeID, r.Split, r.RootIndex, r.K, r.DepthLimit, r.TreeNodes, r.Proposer, r.Model,
			r.NodeID, r.ParentID, r.EdgeID, r.Depth, r.Program, r.ProgramSHA, r.Status, r.Tests, r.PassRate, r.FailedFrac,
			r.Feedback, r.ExecMS, r.Solved, r.Diagnosis, r.Edits, r.ProposeFailed, r.ReviseFailed, r.Raw,
			r.ReviseTokens, r.ProposeTokens, r.OutputTokens, r.TokensEstimated}
	}
	for _, tc := range []struct {
		name, tasksSource, want string
	}{
		{"bundled build", "bundled", "bundled"},
		{"task file", "out/tasks-with-roots.jsonl", SourceUnknown},
		{"no manifest", "", SourceUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeV1Shard(t, filepath.Join(dir, ShardFileName(0)), old)
			if tc.tasksSource != "" {
				m := &Manifest{Schema: SchemaVersion, Settings: BuildSettings{TasksSource: tc.tasksSource}}
				if err := writeManifest(nil, filepath.Join(dir, ManifestName(0, 1)), m); err != nil {
					t.Fatal(err)
				}
			}
			for _, cols := range []Columns{ReplayColumns, ScorerColumns, AllColumns} {
				r, err := OpenTrees([]string{dir}, ReadOptions{Columns: cols, Split: ""})
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for {
					tr, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%v: %v", cols, err)
					}
					n++
					if tr.Source != tc.want {
						t.Errorf("%v: tree %s source %q, want %q", cols, tr.ID, tr.Source, tc.want)
					}
				}
				r.Close()
				if n == 0 {
					t.Errorf("%v: no tree read", cols)
				}
			}
			err := ScanTrees([]string{dir}, func(rows []NodeRow) error {
				for _, r := range rows {
					if r.Source != tc.want {
						t.Errorf("ScanTrees: row source %q, want %q", r.Source, tc.want)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func writeV1Shard(t *testing.T, path string, rows []nodeRowV1) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[nodeRowV1](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
