package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The tests below pin, byte for byte, the text of commands whose output is
// now written by the packages (corpus, train, search/eval/report) rather
// than by cmd. Regenerate with -update-golden only for an intended change
// of behaviour; the files are in testdata/golden-live.

// TestCorpusStatsGolden pins `triage corpus stats` (text and JSON) on the
// eval golden corpus.
func TestCorpusStatsGolden(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"corpus-stats.txt", []string{"corpus", "stats", dir}},
		{"corpus-stats.json", []string{"corpus", "stats", dir, "--json"}},
	} {
		code, out := runEvalCLI(t, c.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", c.args, code, out)
		}
		checkGolden(t, c.golden, out)
	}
}

// TestTuneJSONGolden pins `triage tune --json` (the table is pinned by
// TestEvalGoldenTables) and the parameter file it writes.
func TestTuneJSONGolden(t *testing.T) {
	params := filepath.Join(t.TempDir(), "tuned.json")
	code, out := runEvalCLI(t, "tune", "--corpus", filepath.Join("testdata", "golden"), "--split", "val",
		"--policy", "uct", "--grid", "C=0.5,2;beta=0.5,0.8", "--seeds", "3", "--metric", "AUSC", "--out", params, "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	written, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tune.json", strings.ReplaceAll(out, params, "tuned.json")+"--- tuned.json\n"+string(written))
}

// secondsRe matches the run times in the tasks commands' reports.
var secondsRe = regexp.MustCompile(`( in |seconds +)[0-9]+(\.[0-9]+)?s?`)

// TestTasksValidateGolden pins the report of `triage tasks validate` on a
// file with a valid task, three invalid ones and a malformed line (run
// time replaced).
func TestTasksValidateGolden(t *testing.T) {
	needSandbox(t)
	code, out, _ := runCLIOut(t, context.Background(), "tasks", "validate", "--tasks", filepath.Join("testdata", "validate-tasks.jsonl"),
		"--test-timeout", "5s", "--workers", "2")
	if code != exitFailure {
		t.Errorf("exit %d, want %d (invalid tasks)", code, exitFailure)
	}
	checkGolden(t, "tasks-validate.txt", secondsRe.ReplaceAllString(out, "${1}X"))
}

// TestTasksInjectGolden pins the report of `triage tasks inject` and the
// hash of the task file it writes (run time and output path replaced).
func TestTasksInjectGolden(t *testing.T) {
	needSandbox(t)
	tasks := writeBundledTasks(t, goldenLiveTasks...)
	out := filepath.Join(t.TempDir(), "with-roots.jsonl")
	code, text, err := runCLIOut(t, context.Background(), "tasks", "inject", "--tasks", tasks, "--roots", "2",
		"--seed", "3", "--workers", "2", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, text)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	got := secondsRe.ReplaceAllString(strings.ReplaceAll(text, out, "with-roots.jsonl"), "${1}X")
	checkGolden(t, "tasks-inject.txt", got+"sha256 "+hex.EncodeToString(sum[:])+"\n")
}

// TestCVGolden pins the summary text of `triage cv` (folds, the pooled
// table, the paired comparison) and of `triage cv --lodo` on two small
// corpora, training small models for one epoch.
func TestCVGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("trains models")
	}
	a, b := writeSplitCorpus(t, "a", 16), writeSplitCorpus(t, "b", 16)
	out := t.TempDir()
	common := []string{"--epochs", "1", "--val-every", "5", "--seeds", "2", "--bootstrap", "20", "--budgets", "2,4,8", "--no-progress"}
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"cv.md", append([]string{"cv", "--corpus", a, "--folds", "2", "--out", filepath.Join(out, "cv")}, common...)},
		{"cv-lodo.md", append([]string{"cv", "--lodo", "--corpus", "a=" + a, "--corpus", "b=" + b, "--out", filepath.Join(out, "lodo"),
			"--hybrid-grid", "C=0.5,2"}, common...)},
	} {
		code, text := runEvalCLI(t, c.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", c.args, code, text)
		}
		text = strings.NewReplacer(a, "A", b, "B", out, "OUT").Replace(text)
		checkGolden(t, c.golden, text)
	}
}
