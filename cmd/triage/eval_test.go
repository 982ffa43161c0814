package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"triage/checkpoints"
	"triage/corpus"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/policy"
	"triage/policy/policytest"
)

// runEvalCLI runs the CLI with args; it returns the exit code and output.
func runEvalCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cli := newCLI()
	cli.SetArgs(args)
	var out bytes.Buffer
	cli.SetOut(&out)
	cli.SetErr(&out)
	err := cli.ExecuteContext(context.Background())
	if err != nil {
		out.WriteString("error: " + err.Error())
	}
	return exitCode(err), out.String()
}

// writeTestCorpus writes hand-built exhaustive trees of 4 test tasks and 2
// val tasks (two roots each) to one Parquet shard.
func writeTestCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	fh, err := os.Create(filepath.Join(dir, manifest.ShardFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	w := shard.NewShardWriter(fh, shard.WriterOptions{})
	for i := range 6 {
		split := corpus.SplitTest
		if i >= 4 {
			split = corpus.SplitVal
		}
		for root := range 2 {
			tr := policytest.Exhaustive(fmt.Sprintf("t%d-%d", i, root), 3, 3, policytest.FixAt(0.1*float64(i%3+1), (i+root)%3, i%3, root))
			tr.TaskID, tr.Split = fmt.Sprintf("task%d", i), split
			if err := w.WriteTree(tr, root); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestEvalAndTune(t *testing.T) {
	dir := writeTestCorpus(t)
	out := t.TempDir()
	jsonPath, htmlPath := filepath.Join(out, "eval.json"), filepath.Join(out, "eval.html")
	code, text := runEvalCLI(t, "eval", "--corpus", dir, "--seeds", "2", "--bootstrap", "50",
		"--json", jsonPath, "--report", htmlPath)
	if code != 0 {
		t.Fatalf("eval exit %d:\n%s", code, text)
	}
	if !strings.Contains(text, "| policy | E[T] |") || !strings.Contains(text, "| uct |") {
		t.Errorf("eval table:\n%s", text)
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Policies map[string]map[string]any `json:"policies"`
		Trees    int                       `json:"trees"`
		Tasks    int                       `json:"tasks"`
	}
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Fatal(err)
	}
	// Every baseline, and learned and hybrid when this build embeds a checkpoint.
	wantPolicies := len(policy.Baselines)
	if _, err := checkpoints.DefaultPath(); err == nil {
		wantPolicies += len(policy.Scored)
	}
	if js.Trees != 8 || js.Tasks != 4 || len(js.Policies) != wantPolicies {
		t.Errorf("json: %d trees, %d tasks, %d policies", js.Trees, js.Tasks, len(js.Policies))
	}
	for name, p := range js.Policies {
		if et, _ := p["ET"].(float64); et < 1 || et > 39 {
			t.Errorf("%s: ET = %v, want within 1..39 (tree size)", name, p["ET"])
		}
		if _, ok := p["AUSC36"]; !ok {
			t.Errorf("%s: no AUSC36", name)
		}
	}
	if page, err := os.ReadFile(htmlPath); err != nil || !strings.Contains(string(page), "<svg") {
		t.Errorf("report: %v", err)
	}

	params := filepath.Join(out, "tuned.json")
	code, text = runEvalCLI(t, "tune", "--corpus", dir, "--policy", "rex", "--grid", "C=1,20", "--seeds", "2", "--out", params)
	if code != 0 {
		t.Fatalf("tune exit %d:\n%s", code, text)
	}
	if !strings.Contains(text, "(chosen)") {
		t.Errorf("tune output:\n%s", text)
	}
	code, text = runEvalCLI(t, "eval", "--corpus", dir, "--policies", "rex", "--params", params, "--seeds", "2", "--bootstrap", "10", "--json")
	if code != 0 || !strings.Contains(text, `"rex"`) {
		t.Fatalf("eval with params exit %d:\n%s", code, text)
	}

	for _, args := range [][]string{
		{"eval"},
		{"eval", "--corpus", dir, "--policies", "nosuch"},
		{"eval", "--corpus", dir, "--policies", "learned", "--checkpoint", filepath.Join(dir, "no-such-checkpoint")},
		{"eval", "--corpus", dir, "--split", "train"},
		{"eval", "--corpus", dir, "--split", "bogus"},
		{"eval", "--corpus", dir, "--budgets", "4,x"},
		{"eval", "--corpus", filepath.Join(dir, "missing")},
		{"eval", "--corpus", dir, "--params", filepath.Join(dir, "missing.json")},
		{"tune", "--corpus", dir, "--policy", "rex", "--grid", "C=1", "--out", params, "--split", "test"},
		{"tune", "--corpus", dir, "--policy", "rex", "--grid", "C=-1", "--out", params},
		{"tune", "--corpus", dir, "--policy", "rex", "--grid", "C=1", "--out", params, "--metric", "X"},
	} {
		if code, text := runEvalCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d:\n%s", args, code, exitUsage, text)
		}
	}
}
