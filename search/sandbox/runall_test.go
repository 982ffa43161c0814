package sandbox

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"triage/corpus"
)

// TestRunAll checks that runAll keeps each run at its suite's index,
// whatever the concurrency, and reports the failed run by name.
func TestRunAll(t *testing.T) {
	errDown := errors.New("down")
	tests := []struct {
		name    string
		n       int
		workers int
		failAt  int // -1: none
	}{
		{"one worker", 7, 1, -1},
		{"more workers than runs", 3, 8, -1},
		{"several workers", 40, 4, -1},
		{"failure", 20, 3, 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pick := func(i int) Suite { return Suite{Name: fmt.Sprint("s", i), Program: fmt.Sprint(i)} }
			exec := corpus.ExecutorFunc(func(_ context.Context, program, _ string) (corpus.Execution, error) {
				if program == fmt.Sprint(tc.failAt) {
					return corpus.Execution{}, errDown
				}
				return corpus.Execution{Feedback: program}, nil
			})
			out := make([]corpus.Execution, tc.n)
			_, err := runAll(context.Background(), exec, tc.n, tc.workers, pick, out, nil, "x")
			if tc.failAt >= 0 {
				want := fmt.Sprintf("x run s%d: down", tc.failAt)
				if !errors.Is(err, errDown) || err.Error() != want {
					t.Fatalf("error %v, want %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, ex := range out {
				if ex.Feedback != fmt.Sprint(i) {
					t.Errorf("out[%d] = %q, want %q", i, ex.Feedback, fmt.Sprint(i))
				}
			}
		})
	}
}

// TestRunAllCancelled checks that a cancelled context is reported.
func TestRunAllCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	exec := corpus.ExecutorFunc(func(context.Context, string, string) (corpus.Execution, error) {
		return corpus.Execution{}, nil
	})
	if _, err := runAll(ctx, exec, 5, 2, func(int) Suite { return Suite{} }, make([]corpus.Execution, 5), nil, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
