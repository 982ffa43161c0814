package main

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/limits"
	"triage/search/sandbox"
)

func TestValidateTasks(t *testing.T) {
	if _, err := exec.LookPath(sandbox.DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	test := "from solution import f\ndef test_f():\n    assert f() == 1\n"
	tasks := []corpus.Task{
		{ID: "good", Solution: "def f():\n    return 1\n", Test: test, Roots: []string{"def f():\n    return 0\n"}},
		{ID: "bad-ref", Solution: "def f():\n    return 2\n", Test: test},
		{ID: "passing-root", Solution: "def f():\n    return 1\n", Test: test, Roots: []string{"def f():\n    return 0\n", "def f():\n    return 1 + 0\n"}},
		{ID: "no-import", Solution: "def g():\n    return 1\n", Test: test},
		{ID: "no-tests", Solution: "def f():\n    return 1\n", Test: "from solution import f\n"},
		{ID: "root-no-load", Solution: "def f():\n    return 1\n", Test: test, Roots: []string{"def f(:\n"}},
	}
	bad := []corpus.TaskLineError{{File: "x.jsonl", Line: 3, Err: errors.New("bad JSON")}}
	opts := sandbox.DefaultOptions()
	opts.Workers = 1
	pool, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rep, err := build.ValidateTasks(context.Background(), pool, 2, tasks, bad, limits.DefaultTimeLimits())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tasks != 6 || rep.Valid != 1 || rep.Runs != 10 {
		t.Errorf("tasks %d valid %d runs %d, want 6 1 10", rep.Tasks, rep.Valid, rep.Runs)
	}
	want := map[string]string{"bad-ref": "reference fails", "passing-root": "root 1 passes", "no-import": "load_error",
		"no-tests": "collects no test", "root-no-load": "root 0 does not load"}
	if len(rep.Invalid) != len(want) {
		t.Fatalf("invalid %+v", rep.Invalid)
	}
	for _, it := range rep.Invalid {
		if !strings.Contains(it.Reason, want[it.TaskID]) {
			t.Errorf("%s: reason %q, want it to contain %q", it.TaskID, it.Reason, want[it.TaskID])
		}
	}
	if len(rep.Malformed) != 1 || rep.Malformed[0].Line != 3 || rep.Malformed[0].File != "x.jsonl" {
		t.Errorf("malformed %+v", rep.Malformed)
	}
}
