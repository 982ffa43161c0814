package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/shard"
)

// runCLI runs the CLI with args and returns its exit code.
func runCLI(t *testing.T, args ...string) int {
	t.Helper()
	code, _ := runCLIErr(t, args...)
	return code
}

// runCLIErr runs the CLI with args and returns its exit code and error.
func runCLIErr(t *testing.T, args ...string) (int, error) {
	t.Helper()
	cli := newCLI()
	cli.SetArgs(args)
	var out bytes.Buffer
	cli.SetOut(&out)
	cli.SetErr(&out)
	err := cli.ExecuteContext(context.Background())
	return exitCode(err), err
}

// TestCorpusBuildMutateSandbox builds a tiny corpus with the real mutate
// proposer and sandbox, then resumes it and reads it back.
func TestCorpusBuildMutateSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Python sandbox: skipped under -short")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	task := `{"task_id":"sq","question":"square","solution":"def f(x):\n    return x * x\n","test":"from solution import f\n\ndef test_a():\n    assert f(2) == 4\n\ndef test_b():\n    assert f(3) == 9\n"}` + "\n"
	dir := t.TempDir()
	tasks := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(tasks, []byte(task), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "c")
	args := []string{"corpus", "build", "--tasks", tasks, "--k", "2", "--depth", "2", "--roots", "2", "--out", out, "--workers", "1", "--no-progress"}
	if got := runCLI(t, args...); got != exitOK {
		t.Fatalf("build: exit %d", got)
	}
	if got := runCLI(t, args...); got != exitUsage {
		t.Errorf("rebuild without --resume: exit %d, want %d", got, exitUsage)
	}
	if got := runCLI(t, append(args, "--resume")...); got != exitOK {
		t.Errorf("resume of a complete build: exit %d", got)
	}
	// A resume with another setting that changes verdicts is refused with
	// the setting named.
	for _, c := range []struct{ flag, value, name string }{
		{"--test-timeout-floor", "1s", "time_limits.floor"},
		{"--test-timeout-factor", "3", "time_limits.factor"},
		{"--test-timeout-cap", "20s", "time_limits.cap"},
		{"--test-timeout", "2s", "time_limits.fixed"},
		{"--test-timeout-wall-factor", "5", "time_limits.wall_factor"},
		{"--test-timeout-harness-factor", "2", "time_limits.harness_factor"},
		{"--test-timeout-harness-floor", "50ms", "time_limits.harness_floor"},
		{"--test-timeout-clock", "wall", "time_limits.clock"},
		{"--reference-runs", "1", "reference_runs"},
	} {
		code, err := runCLIErr(t, append(args, "--resume", c.flag, c.value)...)
		if code != exitUsage || err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("resume with %s %s: exit %d, %v; want %d naming %s", c.flag, c.value, code, err, exitUsage, c.name)
		}
	}
	// A corpus built before CPU limits (no clock in its manifest: wall-clock
	// limits) resumes only with --test-timeout-clock wall.
	old := filepath.Join(dir, "old")
	oldArgs := []string{"corpus", "build", "--tasks", tasks, "--k", "2", "--depth", "1", "--roots", "1", "--out", old, "--workers", "1", "--no-progress"}
	if got := runCLI(t, append(oldArgs, "--test-timeout-clock", "wall")...); got != exitOK {
		t.Fatalf("wall-clock build: exit %d", got)
	}
	mpath := filepath.Join(old, "manifest.json")
	data, err := os.ReadFile(mpath)
	if err != nil || !strings.Contains(string(data), `"clock": "wall",`) {
		t.Fatalf("manifest: %v\n%s", err, data)
	}
	if err := os.WriteFile(mpath, []byte(strings.Replace(string(data), `"clock": "wall",`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, err := runCLIErr(t, append(oldArgs, "--resume")...); code != exitUsage || err == nil || !strings.Contains(err.Error(), `time_limits.clock: manifest "wall", now "cpu"`) {
		t.Errorf("resume of a wall-clock corpus with CPU limits: exit %d, %v; want %d naming time_limits.clock", code, err, exitUsage)
	}
	if got := runCLI(t, append(oldArgs, "--resume", "--test-timeout-clock", "wall")...); got != exitOK {
		t.Errorf("resume of a wall-clock corpus with --test-timeout-clock wall: exit %d", got)
	}
	// A corpus built with CPU limits on the whole count (its manifest has
	// no harness factor, as before the split) resumes only with
	// --test-timeout-harness-factor 0.
	whole := filepath.Join(dir, "whole")
	wholeArgs := []string{"corpus", "build", "--tasks", tasks, "--k", "2", "--depth", "1", "--roots", "1", "--out", whole, "--workers", "1", "--no-progress"}
	if got := runCLI(t, append(wholeArgs, "--test-timeout-harness-factor", "0")...); got != exitOK {
		t.Fatalf("build with --test-timeout-harness-factor 0: exit %d", got)
	}
	if data, err := os.ReadFile(filepath.Join(whole, "manifest.json")); err != nil || strings.Contains(string(data), `"harness_f`) {
		t.Fatalf("manifest of a build without the split names a harness limit: %v\n%s", err, data)
	}
	if code, err := runCLIErr(t, append(wholeArgs, "--resume")...); code != exitUsage || err == nil || !strings.Contains(err.Error(), "time_limits.harness_factor: manifest (unset), now 6") {
		t.Errorf("resume of a whole-count corpus with split limits: exit %d, %v; want %d naming time_limits.harness_factor", code, err, exitUsage)
	}
	if got := runCLI(t, append(wholeArgs, "--resume", "--test-timeout-harness-factor", "0")...); got != exitOK {
		t.Errorf("resume of a whole-count corpus with --test-timeout-harness-factor 0: exit %d", got)
	}
	// --strict refuses a task file with a task that fails the input checks.
	badRef := strings.Replace(task, `"task_id":"sq"`, `"task_id":"sq2"`, 1)
	badRef = strings.Replace(badRef, `return x * x`, `return x + x`, 1)
	both := filepath.Join(dir, "both.jsonl")
	if err := os.WriteFile(both, []byte(task+badRef), 0o644); err != nil {
		t.Fatal(err)
	}
	code, err := runCLIErr(t, "corpus", "build", "--tasks", both, "--k", "2", "--depth", "1", "--roots", "1", "--strict",
		"--out", filepath.Join(dir, "strict"), "--workers", "1", "--no-progress")
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "sq2: reference fails") {
		t.Errorf("--strict with a failing reference: exit %d, %v", code, err)
	}
	trees, err := shard.LoadTrees(out)
	if err != nil || len(trees) == 0 {
		t.Fatalf("load: %d trees, %v", len(trees), err)
	}
	for _, tr := range trees {
		if tr.Root().Solved() {
			t.Errorf("tree %s: the injected root passes", tr.ID)
		}
		if len(tr.Nodes) < 2 {
			t.Errorf("tree %s: root not expanded", tr.ID)
		}
	}
	if got := runCLI(t, "corpus", "stats", out); got != exitOK {
		t.Errorf("stats: exit %d", got)
	}
	// A second build from scratch, with two workers, gives the same trees
	// (run times aside): ids, roots and proposals are deterministic.
	out2 := filepath.Join(dir, "c2")
	args2 := []string{"corpus", "build", "--tasks", tasks, "--k", "2", "--depth", "2", "--roots", "2", "--out", out2, "--workers", "2", "--no-progress"}
	if got := runCLI(t, args2...); got != exitOK {
		t.Fatalf("second build: exit %d", got)
	}
	trees2, err := shard.LoadTrees(out2)
	if err != nil {
		t.Fatal(err)
	}
	if len(trees2) != len(trees) {
		t.Fatalf("second build: %d trees, first %d", len(trees2), len(trees))
	}
	for i := range trees {
		a, b := stripTimes(trees[i]), stripTimes(trees2[i])
		if !reflect.DeepEqual(a, b) {
			t.Errorf("tree %s differs between two builds", trees[i].ID)
		}
	}
}

// stripTimes zeroes the run times of a tree's executions.
func stripTimes(t *corpus.Tree) *corpus.Tree {
	for i := range t.Nodes {
		t.Nodes[i].Exec.DurationMS = 0
		for j := range t.Nodes[i].Exec.Tests {
			t.Nodes[i].Exec.Tests[j].DurationMS = 0
		}
	}
	return t
}
