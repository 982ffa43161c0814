package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/policy/policytest"
)

// writeSplitCorpus writes n exhaustive trees of n tasks named prefix-i, in
// the splits train, train, val, test in turn, each with one fix, as one
// shard in a new folder.
func writeSplitCorpus(t *testing.T, prefix string, n int) string {
	t.Helper()
	dir := t.TempDir()
	var trees []*corpus.Tree
	for i := range n {
		tr := policytest.Exhaustive(fmt.Sprintf("%s-%d", prefix, i), 3, 3, policytest.FixAt(0.2, i%3, (i/3)%3))
		tr.Split = []string{corpus.SplitTrain, corpus.SplitTrain, corpus.SplitVal, corpus.SplitTest}[i%4]
		corpus.ComputeLabels(tr)
		trees = append(trees, tr)
	}
	if err := shard.WriteShardFile(filepath.Join(dir, "part-00000.parquet"), trees); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCVLodo runs `triage cv --lodo` on two small corpora: both directions,
// two training seeds each, the JSON record complete.
func TestCVLodo(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four models")
	}
	a, b := writeSplitCorpus(t, "a", 16), writeSplitCorpus(t, "b", 16)
	out := t.TempDir()
	js := filepath.Join(out, "lodo.json")
	code, text := runEvalCLI(t, "cv", "--lodo", "--corpus", "a="+a, "--corpus", "b="+b, "--out", out,
		"--epochs", "1", "--val-every", "5", "--train-seeds", "1,2", "--seeds", "2", "--bootstrap", "20",
		"--hybrid-grid", "C=0.5,2", "--json-file", js, "--no-progress")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, text)
	}
	t.Log(text)
	for _, want := range []string{"## train on a, score on b (test split: 4 trees", "## train on b, score on a", "| learned (2 seeds) |", "| hybrid (2 seeds) |", "| uct |", "| learned | uct | "} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		LODO []struct {
			Train, Test string
			Runs        []struct {
				Checkpoint string `json:"checkpoint"`
			} `json:"runs"`
		} `json:"lodo"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.LODO) != 2 || len(rec.LODO[0].Runs) != 2 || len(rec.LODO[1].Runs) != 2 {
		t.Fatalf("JSON: %s", raw)
	}
	ck, err := os.ReadFile(filepath.Join(rec.LODO[0].Runs[0].Checkpoint, "checkpoint.json"))
	if err != nil || !strings.Contains(string(ck), `"manifests_sha256"`) || !strings.Contains(string(ck), `"triage_revision"`) {
		t.Errorf("checkpoint provenance missing (%v)", err)
	}
}
