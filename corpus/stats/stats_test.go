package stats_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/build/buildtest"
	"triage/corpus/corpustest"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/corpus/stats"
)

func TestComputeStatsMatchesTrees(t *testing.T) {
	tasks := corpustest.FakeTasks(7)
	tasks[0].Split, tasks[1].Split = corpus.SplitTest, corpus.SplitVal
	dir := t.TempDir()
	if _, err := build.BuildCorpus(context.Background(), tasks, buildtest.Options(dir, &corpustest.FakeProposer{}, &corpustest.FakeExecutor{})); err != nil {
		t.Fatal(err)
	}
	trees, err := shard.LoadTrees(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := stats.ComputeStats(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Expected values from the loaded trees.
	var nodes, edits, solved, tokens int
	var pass float64
	depthHist := map[string]int{}
	tHist := map[string]int{}
	splitTrees := map[string]int{}
	for _, tr := range trees {
		nodes += len(tr.Nodes)
		edits += len(tr.Edges)
		splitTrees[tr.Split]++
		fix := -1
		for _, n := range tr.Nodes {
			pass += n.Exec.PassRate
			tokens += n.ReviseTokens + n.ProposeTokens
			if n.Solved() && (fix < 0 || n.Depth < fix) {
				fix = n.Depth
			}
		}
		if fix >= 0 {
			solved++
			depthHist[strconv.Itoa(fix)]++
		} else {
			depthHist["unsolved"]++
		}
		for _, e := range tr.Edges {
			if e.Label.Censored {
				tHist["censored"]++
			} else {
				tHist[strconv.Itoa(int(e.Label.T))]++
			}
		}
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"trees", float64(s.Trees), float64(len(trees))},
		{"tasks", float64(s.Tasks), 7},
		{"nodes", float64(s.Nodes), float64(nodes)},
		{"edits", float64(s.Edits), float64(edits)},
		{"solved", float64(s.SolvedTrees), float64(solved)},
		{"tokens", float64(s.OutputTokens), float64(tokens)},
		{"mean pass rate", s.MeanPassRate, pass / float64(nodes)},
		{"mean nodes", s.MeanNodesPerRoot, float64(nodes) / float64(len(trees))},
		{"test split trees", float64(s.Splits[corpus.SplitTest].Trees), float64(splitTrees[corpus.SplitTest])},
		{"val split tasks", float64(s.Splits[corpus.SplitVal].Tasks), 1},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for k, v := range depthHist {
		if s.SolveDepth[k] != v {
			t.Errorf("solve depth %s: %d, want %d", k, s.SolveDepth[k], v)
		}
	}
	for k, v := range tHist {
		if s.EdgeT[k] != v {
			t.Errorf("edge t %s: %d, want %d", k, s.EdgeT[k], v)
		}
	}
	if s.Compression <= 1 || s.Bytes <= 0 {
		t.Errorf("compression %v bytes %d", s.Compression, s.Bytes)
	}
	b, _ := json.Marshal(s)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for _, k := range []string{"trees", "nodes", "solved_trees", "splits"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if got := stats.SortedKeys(map[string]int{"unsolved": 1, "10": 1, "2": 1}); got[0] != "2" || got[1] != "10" || got[2] != "unsolved" {
		t.Errorf("SortedKeys = %v", got)
	}
}

func TestStatsEmptyAndMissing(t *testing.T) {
	s, err := stats.ComputeStats(t.TempDir())
	if err != nil || s.Trees != 0 || s.MeanPassRate != 0 {
		t.Errorf("empty corpus: %+v, %v", s, err)
	}
	if _, err := stats.ComputeStats(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("missing folder: no error")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, manifest.ShardFileName(0)), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := stats.ComputeStats(dir); err == nil {
		t.Error("garbage shard: no error")
	}
}
