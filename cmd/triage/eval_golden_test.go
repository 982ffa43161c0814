package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"triage/policy"
)

// TestEvalGoldenTables: eval and tune print, byte for byte, the tables that
// the in-memory evaluation (before streaming, commit 3fdb10b) printed on
// the same corpus with the same seeds. testdata/golden is a corpus of 6
// bundled tasks whose trees hold fixes, put in the test and val splits
// (golden-tasks.jsonl), built by that commit with
//
//	triage corpus build --tasks golden-tasks.jsonl --roots 2 --depth 3 --test-timeout 2s --out testdata/golden
//
// and the .md files hold that commit's output of the commands below (the
// tune output with its --out path replaced by "tuned.json").
func TestEvalGoldenTables(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	params := filepath.Join(t.TempDir(), "tuned.json")
	// The baselines only: the learned row depends on the embedded
	// checkpoint, which `make checkpoint` remakes.
	baselines := strings.Join(policy.Baselines, ",")
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"eval-test.md", []string{"eval", "--corpus", dir, "--split", "test", "--policies", baselines}},
		{"eval-val.md", []string{"eval", "--corpus", dir, "--split", "val", "--seeds", "4", "--budgets", "2,5,9", "--policies", baselines}},
		{"tune-val.md", []string{"tune", "--corpus", dir, "--split", "val", "--policy", "rex", "--grid", "C=1,5,20", "--out", params}},
	} {
		want, err := os.ReadFile(filepath.Join(dir, c.golden))
		if err != nil {
			t.Fatal(err)
		}
		code, got := runEvalCLI(t, c.args...)
		got = strings.ReplaceAll(got, params, "tuned.json")
		if code != 0 || got != string(want) {
			t.Errorf("%v: exit %d, output\n%s\nwant (%s)\n%s", c.args, code, got, c.golden, want)
		}
	}
}
