package taskset

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"triage/corpus"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := `{"task_id":"a","question":"q","solution":"def f():\n    return 1\n","test":"from solution import f\n\ndef test_f():\n    assert f() == 1\n"}`
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	withBad := write("bad.jsonl", good+"\n{\"task_id\": \n")
	for _, c := range []struct {
		name, spec string
		skip       bool
		tasks      int // -1: bad input; -2: at least 100
	}{
		{"no spec", "", false, -1},
		{"bundled", "bundled", false, 139},
		{"exercism", "exercism", false, -2},
		{"thealgorithms", "thealgorithms", false, -2},
		{"missing file", filepath.Join(dir, "none.jsonl"), false, -1},
		{"good file", write("good.jsonl", good+"\n"), false, 1},
		{"malformed line refused", withBad, false, -1},
		{"malformed line skipped", withBad, true, 1},
		{"empty file", write("empty.jsonl", ""), false, -1},
		{"only malformed", write("junk.jsonl", "{\n"), true, -1},
	} {
		tasks, err := Load(c.spec, c.skip)
		var ie *corpus.InputError
		switch {
		case c.tasks == -2 && (err != nil || len(tasks) < 100):
			t.Errorf("%s: %d tasks, err %v; want at least 100", c.name, len(tasks), err)
		case c.tasks == -1 && !errors.As(err, &ie):
			t.Errorf("%s: err %v, want bad input", c.name, err)
		case c.tasks >= 0 && (err != nil || len(tasks) != c.tasks):
			t.Errorf("%s: %d tasks, err %v; want %d", c.name, len(tasks), err, c.tasks)
		}
	}
}

func TestBuiltinAndSamePath(t *testing.T) {
	for _, name := range []string{"bundled", "mbpp", "exercism", "thealgorithms"} {
		if !Builtin(name) {
			t.Errorf("Builtin(%q) = false", name)
		}
	}
	if Builtin("tasks.jsonl") {
		t.Error("Builtin: a file name is not a set")
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if !SamePath(a, filepath.Join(dir, ".", "a.jsonl")) || !SamePath(a, link) || SamePath(a, filepath.Join(dir, "b.jsonl")) {
		t.Error("SamePath: want a = ./a = link, a ≠ b")
	}
}

// TestSources: every embedded set loads, with its tasks' source its name,
// and says its licence, commit and origin; Load and Builtin agree.
func TestSources(t *testing.T) {
	srcs := Sources()
	if len(srcs) < 4 {
		t.Fatalf("%d sources", len(srcs))
	}
	for _, s := range srcs {
		tasks, err := s.Load()
		if err != nil || len(tasks) == 0 {
			t.Fatalf("%s: %d tasks, %v", s.Name, len(tasks), err)
		}
		if s.License == "" || s.Commit == "" || s.Origin == "" || !Builtin(s.Name) {
			t.Errorf("%s: license %q commit %q origin %q", s.Name, s.License, s.Commit, s.Origin)
		}
		for _, task := range tasks {
			if task.Source != s.Name {
				t.Fatalf("%s: task %s has source %q", s.Name, task.ID, task.Source)
			}
			if s.Commit != ThisRepository && task.License != s.License {
				t.Fatalf("%s: task %s has license %q", s.Name, task.ID, task.License)
			}
		}
	}
}
