package mutate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"triage/corpus"
)

const binSearch = `def search(xs, target):
    lo, hi = 0, len(xs) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if xs[mid] == target:
            return mid
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1
`

// fakeExec passes the reference, reports a load error for programs whose
// hash starts with 0-3, passes those starting with 4, and fails the rest.
func fakeExec(ref string) corpus.Executor {
	return corpus.ExecutorFunc(func(ctx context.Context, program, tests string) (corpus.Execution, error) {
		if err := ctx.Err(); err != nil {
			return corpus.Execution{}, err
		}
		pass := corpus.Execution{Status: corpus.StatusOK, PassRate: 1, Tests: []corpus.TestResult{{Name: "t", Passed: true}}}
		if program == ref {
			return pass, nil
		}
		switch corpus.SHA256(program)[0] {
		case '0', '1', '2', '3':
			return corpus.Execution{Status: corpus.StatusLoadError, FailedFrac: 1}, nil
		case '4':
			return pass, nil
		}
		return corpus.Execution{Status: corpus.StatusOK, FailedFrac: 1, Tests: []corpus.TestResult{{Name: "t"}}}, nil
	})
}

func TestInject(t *testing.T) {
	task := &corpus.Task{ID: "bs", Solution: binSearch, Test: "from solution import search\n"}
	ctx := context.Background()
	exec := fakeExec(binSearch)
	roots, err := Inject(ctx, task, exec, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(roots) != 5 {
		t.Fatalf("got %d roots, want 5", len(roots))
	}
	seen := map[string]bool{}
	for _, r := range roots {
		if r == binSearch || seen[r] {
			t.Errorf("root is the reference or repeated:\n%s", r)
		}
		seen[r] = true
		if c := corpus.SHA256(r)[0]; c <= '4' {
			t.Errorf("kept a root the executor rejected (hash %c)", c)
		}
		// 1–3 changed lines, same line count.
		a, b := strings.Split(binSearch, "\n"), strings.Split(r, "\n")
		if len(a) != len(b) {
			t.Fatalf("line count changed:\n%s", r)
		}
		diff := 0
		for i := range a {
			if a[i] != b[i] {
				diff++
			}
		}
		if diff < 1 || diff > 3 {
			t.Errorf("%d changed lines, want 1–3:\n%s", diff, r)
		}
	}
	again, _ := Inject(ctx, task, exec, 5, 3)
	if !slices.Equal(roots, again) {
		t.Error("same seed, different roots")
	}
	other, _ := Inject(ctx, task, exec, 5, 4)
	if slices.Equal(roots, other) {
		t.Error("different seeds, same roots")
	}
	three, _ := Inject(ctx, task, exec, 3, 3)
	if len(three) != 3 {
		t.Errorf("maxRoots 3 gave %d", len(three))
	}
}

func TestInjectEdgeCases(t *testing.T) {
	ctx := context.Background()
	task := &corpus.Task{ID: "x", Solution: binSearch}
	for _, tc := range []struct {
		name    string
		task    *corpus.Task
		exec    corpus.Executor
		max     int
		want    int
		wantErr bool
	}{
		{"nothing to mutate", &corpus.Task{ID: "c", Solution: "X = 1\n"}, fakeExec(""), 5, 0, false},
		{"all pass", task, corpus.ExecutorFunc(func(context.Context, string, string) (corpus.Execution, error) {
			return corpus.Execution{Status: corpus.StatusOK, PassRate: 1, Tests: []corpus.TestResult{{Passed: true}}}, nil
		}), 5, 0, false},
		{"executor error", task, corpus.ExecutorFunc(func(context.Context, string, string) (corpus.Execution, error) {
			return corpus.Execution{}, errors.New("boom")
		}), 5, 0, true},
		{"zero roots", task, fakeExec(binSearch), 0, 0, false},
		{"nil task", nil, fakeExec(binSearch), 5, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			roots, err := Inject(ctx, tc.task, tc.exec, tc.max, 1)
			if (err != nil) != tc.wantErr || len(roots) != tc.want {
				t.Fatalf("Inject = %d roots, %v", len(roots), err)
			}
		})
	}
}
