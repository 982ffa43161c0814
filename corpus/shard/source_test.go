package shard_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// nodeRowV1 is NodeRow as written before the source column.
type nodeRowV1 struct {
	TaskID          string          `parquet:"task_id,dict"`
	TreeID          string          `parquet:"tree_id,dict"`
	Split           string          `parquet:"split,dict"`
	RootIndex       int32           `parquet:"root_index"`
	K               int32           `parquet:"k"`
	DepthLimit      int32           `parquet:"depth_limit"`
	TreeNodes       int32           `parquet:"tree_nodes"`
	Proposer        string          `parquet:"proposer,dict"`
	Model           string          `parquet:"model,dict"`
	NodeID          int32           `parquet:"node_id"`
	ParentID        int32           `parquet:"parent_id"`
	EdgeID          int32           `parquet:"edge_id"`
	Depth           int32           `parquet:"depth"`
	Program         string          `parquet:"program"`
	ProgramSHA      string          `parquet:"program_sha256"`
	Status          string          `parquet:"status,dict"`
	Tests           []shard.TestRow `parquet:"tests,list"`
	PassRate        float64         `parquet:"pass_rate"`
	FailedFrac      float64         `parquet:"failed_frac"`
	Feedback        string          `parquet:"feedback"`
	ExecMS          float64         `parquet:"exec_duration_ms"`
	Solved          bool            `parquet:"solved"`
	Diagnosis       string          `parquet:"diagnosis"`
	Edits           []shard.EditRow `parquet:"edits,list"`
	ProposeFailed   bool            `parquet:"propose_failed"`
	ReviseFailed    bool            `parquet:"revise_failed"`
	Raw             string          `parquet:"raw"`
	ReviseTokens    int32           `parquet:"revise_tokens"`
	ProposeTokens   int32           `parquet:"propose_tokens"`
	OutputTokens    int32           `parquet:"output_tokens"`
	TokensEstimated bool            `parquet:"tokens_estimated"`
}

// TestShardsWithoutSource reads shards written before the source column:
// their trees take the source their folder's manifests name.
func TestShardsWithoutSource(t *testing.T) {
	built := t.TempDir()
	if _, err := build.BuildCorpus(context.Background(), corpustest.FakeTasks(3), buildtest.Options(built, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	rows := buildtest.AllRows(t, built)
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
		{"task file", "out/tasks-with-roots.jsonl", corpus.SourceUnknown},
		{"no manifest", "", corpus.SourceUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeV1Shard(t, filepath.Join(dir, manifest.ShardFileName(0)), old)
			if tc.tasksSource != "" {
				m := &manifest.Manifest{Schema: shard.SchemaVersion, Settings: manifest.BuildSettings{TasksSource: tc.tasksSource}}
				if err := manifest.WriteManifest(nil, filepath.Join(dir, manifest.ManifestName(0, 1)), m); err != nil {
					t.Fatal(err)
				}
			}
			for _, cols := range []shard.Columns{shard.ReplayColumns, shard.ScorerColumns, shard.AllColumns} {
				r, err := shard.OpenTrees([]string{dir}, shard.ReadOptions{Columns: cols, Split: ""})
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
			err := shard.ScanTrees([]string{dir}, func(rows []shard.NodeRow) error {
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
