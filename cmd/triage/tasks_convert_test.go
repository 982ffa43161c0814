package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"triage/corpus"
)

// TestTasksConvertMBPP converts corpus/testdata's MBPP sample in the
// sandbox: the tasks whose reference passes are written with their
// challenge asserts, and task 596 (sys.getsizeof of this Python differs from
// MBPP's expected 104) is left out and named.
func TestTasksConvertMBPP(t *testing.T) {
	needSandbox(t)
	out := filepath.Join(t.TempDir(), "mbpp.jsonl")
	code, stdout, err := runCLIOut(t, context.Background(), "tasks", "convert", "--from", "mbpp",
		"--in", "../../corpus/testdata/mbpp-sample.jsonl", "--out", out, "--workers", "2")
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
