package shard_test

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/stats"
)

// TestDuckDBInterop reads a corpus with DuckDB (scripts/duckdb/check.mjs,
// which installs @duckdb/node-api on first use) and compares with
// ComputeStats.
func TestDuckDBInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node and may npm install: skipped under -short")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: DuckDB interop needs Node.js and npm", tool)
		}
	}
	tasks := corpustest.FakeTasks(5)
	a, b := t.TempDir(), t.TempDir()
	for i, d := range []string{a, b} {
		o := buildtest.Options(d, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})
		o.ShardIndex, o.ShardCount = i, 2
		if _, err := build.BuildCorpus(context.Background(), tasks, o); err != nil {
			t.Fatal(err)
		}
	}
	s, err := stats.ComputeStats(a, b)
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "duckdb", "check.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", script, a, b).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("check.mjs: %v\n%s", err, stderr)
	}
	var got struct {
		Rows         int     `json:"rows"`
		MeanPassRate float64 `json:"mean_pass_rate"`
		Edits        int64   `json:"edits"`
		Trees        int     `json:"trees"`
		SolvedTrees  int     `json:"solved_trees"`
		BadLabels    int     `json:"bad_labels"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("check.mjs output %q: %v", out, err)
	}
	if got.Rows != s.Nodes || got.Edits != s.Edits || got.Trees != s.Trees || got.SolvedTrees != s.SolvedTrees {
		t.Errorf("duckdb %+v, stats: rows %d edits %d trees %d solved %d", got, s.Nodes, s.Edits, s.Trees, s.SolvedTrees)
	}
	if math.Abs(got.MeanPassRate-s.MeanPassRate) > 1e-9 {
		t.Errorf("mean pass rate: duckdb %v, stats %v", got.MeanPassRate, s.MeanPassRate)
	}
	if got.BadLabels != 0 {
		t.Errorf("duckdb found %d edges with inconsistent labels", got.BadLabels)
	}
	if s.Nodes == 0 || s.Edits == 0 {
		t.Error("empty corpus")
	}
}
