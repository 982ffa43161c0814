package mutate

import (
	"context"
	"strings"
	"testing"

	"triage/corpus"
	"triage/search/sandbox"
)

const binSearchTests = `from solution import search
import pytest


@pytest.mark.parametrize("xs, target, want", [
    ([1, 3, 5, 7], 7, 3),
    ([1, 3, 5, 7], 1, 0),
    ([1, 3, 5, 7], 4, -1),
    ([], 2, -1),
    ([2], 2, 0),
    ([1, 2, 3, 4, 5, 6], 5, 4),
])
def test_search(xs, target, want):
    assert search(xs, target) == want
`

// TestWithSandbox injects roots into a real task, checks through the
// sandbox that each fails, and proposes and revises on one of them with
// per-test coverage. It needs /usr/bin/python3 with pytest.
func TestWithSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python tests in the sandbox")
	}
	opts := sandbox.DefaultOptions()
	opts.Coverage = true
	opts.Workers = 2
	pool, err := sandbox.New(opts)
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	defer pool.Close()
	ctx := context.Background()
	task := &corpus.Task{ID: "bs", Solution: binSearch, Test: binSearchTests}
	ref, err := pool.Run(ctx, binSearch, binSearchTests)
	if err != nil || !ref.Solved() {
		t.Fatalf("reference: %+v, %v", ref, err)
	}
	roots, err := Inject(ctx, task, pool, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(roots) == 0 {
		t.Fatal("no roots")
	}
	for _, r := range roots {
		ex, err := pool.Run(ctx, r, binSearchTests)
		if err != nil || ex.Status != corpus.StatusOK || ex.Solved() {
			t.Fatalf("root does not load-and-fail: %+v, %v\n%s", ex.Status, err, r)
		}
	}
	ex, _ := pool.Run(ctx, roots[0], binSearchTests)
	p := New(Options{Seed: 1})
	prop, err := p.Propose(ctx, corpus.ProposeRequest{Task: task, Program: roots[0], Exec: ex, K: 3, Key: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prop.Diagnosis, "Ochiai") || !strings.Contains(prop.Diagnosis, "test_search[") || len(prop.Edits) != 3 {
		t.Fatalf("proposal:\n%s\n%+v", prop.Diagnosis, prop.Edits)
	}
	t.Logf("root:\n%s\ndiagnosis:\n%s", roots[0], prop.Diagnosis)
	for _, e := range prop.Edits {
		t.Logf("edit: %s", e.Text)
		rev, err := p.Revise(ctx, corpus.ReviseRequest{Task: task, Program: roots[0], Edit: e})
		if err != nil || rev.Failed {
			t.Fatalf("revise: %+v, %v", rev, err)
		}
		if _, err := pool.Run(ctx, rev.Program, binSearchTests); err != nil {
			t.Fatal(err)
		}
	}
}
