package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/taskset"
)

// TestTasksConvertMBPP converts corpus/convert/testdata's MBPP sample in the
// sandbox: the tasks whose reference passes are written with their
// challenge asserts, and task 596 (sys.getsizeof of this Python differs from
// MBPP's expected 104) is left out and named.
func TestTasksConvertMBPP(t *testing.T) {
	needSandbox(t)
	out := filepath.Join(t.TempDir(), "mbpp.jsonl")
	code, stdout, err := runCLIOut(t, context.Background(), "tasks", "convert", "--from", "mbpp",
		"--in", "../../corpus/convert/testdata/mbpp-sample.jsonl", "--out", out, "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %v\n%s", code, err, stdout)
	}
	if !strings.Contains(stdout, "left out mbpp_596: reference fails") {
		t.Errorf("output does not name mbpp_596:\n%s", stdout)
	}
	tasks, bad, err := corpus.LoadTasks(out)
	if err != nil || len(bad) > 0 {
		t.Fatalf("load %s: %v %v", out, bad, err)
	}
	if len(tasks) != 8 {
		t.Fatalf("%d tasks, want 8", len(tasks))
	}
	for _, task := range tasks {
		if task.ID == "mbpp_020" && strings.Count(task.Test, "def test_challenge_") != 3 {
			t.Errorf("mbpp_020 keeps %d of its 3 challenge asserts", strings.Count(task.Test, "def test_challenge_"))
		}
	}
}

// TestTasksConvertRepositories converts corpus/convert's fake Exercism
// track and fake TheAlgorithms tree in the sandbox: every converted task
// passes the input checks there, the report names what was left out, and
// --report writes it as JSON.
func TestTasksConvertRepositories(t *testing.T) {
	needSandbox(t)
	const commit = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		from, in string
		tasks    int
		leftOut  string
	}{
		{"exercism", "../../corpus/convert/testdata/exercism", 3, "left out exercism_dice [convert] uses randomness"},
		{"thealgorithms", "../../corpus/convert/testdata/thealgorithms", 6, "left out thealgorithms_maths_impure_mean [convert] imports a package outside the standard library: numpy"},
	} {
		dir := t.TempDir()
		out, report := filepath.Join(dir, "tasks.jsonl"), filepath.Join(dir, "report.json")
		code, stdout, err := runCLIOut(t, context.Background(), "tasks", "convert", "--from", c.from, "--in", c.in,
			"--commit", commit, "--out", out, "--report", report, "--workers", "2")
		if code != 0 {
			t.Fatalf("%s: exit %d: %v\n%s", c.from, code, err, stdout)
		}
		if !strings.Contains(stdout, c.leftOut) {
			t.Errorf("%s: output does not say %q:\n%s", c.from, c.leftOut, stdout)
		}
		tasks, bad, err := corpus.LoadTasks(out)
		if err != nil || len(bad) > 0 || len(tasks) != c.tasks {
			t.Fatalf("%s: %d tasks (want %d), %v %v", c.from, len(tasks), c.tasks, bad, err)
		}
		var rep struct {
			Converted, Tasks int
			Commit           string
		}
		if b, err := os.ReadFile(report); err != nil || json.Unmarshal(b, &rep) != nil || rep.Tasks != c.tasks || rep.Converted != c.tasks || rep.Commit != commit {
			t.Errorf("%s: report %+v, %v", c.from, rep, err)
		}
	}
}

// TestTasksSources: every embedded set is listed, at least bundled, MBPP,
// Exercism and TheAlgorithms, with tasks per split that add up, its
// licence and upstream commit.
func TestTasksSources(t *testing.T) {
	code, stdout, err := runCLIOut(t, context.Background(), "tasks", "sources", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var rows []struct {
		Name, License, Commit, Origin string
		Tasks                         int
		Splits                        map[string]int
	}
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(rows) < 4 {
		t.Fatalf("%d sources, want at least 4", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Name] = true
		if r.Tasks == 0 || r.Splits["train"]+r.Splits["val"]+r.Splits["test"] != r.Tasks || r.License == "" || r.Commit == "" || r.Origin == "" {
			t.Errorf("row %+v", r)
		}
	}
	for _, name := range []string{"bundled", "mbpp", "exercism", "thealgorithms"} {
		if !seen[name] {
			t.Errorf("%s is not listed", name)
		}
	}
	code, text, err := runCLIOut(t, context.Background(), "tasks", "sources")
	if code != 0 || !strings.HasPrefix(text, "NAME") || strings.Count(text, "\n") != len(rows)+1 {
		t.Errorf("text table (exit %d, %v):\n%s", code, err, text)
	}
}

// TestEmbeddedSourcesSample validates a sample of each converted embedded
// set in the sandbox (the whole sets take minutes: docs/tasks.md gives the
// figures): every fiftieth task of TheAlgorithms', every tenth of
// Exercism's.
func TestEmbeddedSourcesSample(t *testing.T) {
	needSandbox(t)
	var sample []corpus.Task
	for _, s := range []struct {
		name  string
		every int
	}{{"exercism", 10}, {"thealgorithms", 50}} {
		tasks, err := taskset.Load(s.name, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(tasks); i += s.every {
			sample = append(sample, tasks[i])
		}
	}
	path := filepath.Join(t.TempDir(), "sample.jsonl")
	if err := build.WriteTasksFile(path, sample); err != nil {
		t.Fatal(err)
	}
	code, stdout, err := runCLIOut(t, context.Background(), "tasks", "validate", "--tasks", path, "--workers", "2")
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("%d tasks, %d valid, 0 invalid", len(sample), len(sample))) {
		t.Fatalf("exit %d: %v\n%s", code, err, stdout)
	}
}
