package corpus

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestForEach checks ForEach's contract: every index once when nothing
// fails, at most workers calls at once, the first error returned and no
// call started after it, and the context's cause when ctx ended first.
func TestForEach(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		n       int
		workers int
		failAt  int // -1: none
	}{
		{"none", 0, 3, -1},
		{"one worker", 9, 1, -1},
		{"zero workers means one", 4, 0, -1},
		{"more workers than calls", 3, 10, -1},
		{"several", 50, 4, -1},
		{"failure, one worker", 10, 1, 4},
		{"failure, several", 30, 3, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[int]int{}
			var running, peak atomic.Int64
			err := ForEach(context.Background(), tc.n, tc.workers, func(i int) error {
				r := running.Add(1)
				defer running.Add(-1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				mu.Lock()
				seen[i]++
				mu.Unlock()
				if i == tc.failAt {
					return errBoom
				}
				return nil
			})
			if p := peak.Load(); p > int64(max(1, tc.workers)) {
				t.Errorf("%d calls at once, want at most %d", p, max(1, tc.workers))
			}
			if tc.failAt >= 0 {
				if !errors.Is(err, errBoom) {
					t.Fatalf("error %v, want %v", err, errBoom)
				}
				if tc.workers == 1 && len(seen) != tc.failAt+1 {
					t.Errorf("%d calls with one worker, want %d (none after the error)", len(seen), tc.failAt+1)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(seen) != tc.n {
				t.Errorf("%d indices called, want %d", len(seen), tc.n)
			}
			for i, c := range seen {
				if c != 1 || i < 0 || i >= tc.n {
					t.Errorf("index %d called %d times", i, c)
				}
			}
		})
	}
}

// TestForEachCancelled checks that an ended context is returned as its
// cause and that no call starts.
func TestForEachCancelled(t *testing.T) {
	errStop := errors.New("stop")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errStop)
	calls := 0
	err := ForEach(ctx, 5, 2, func(int) error { calls++; return nil })
	if !errors.Is(err, errStop) || calls != 0 {
		t.Fatalf("error %v after %d calls, want %v after none", err, calls, errStop)
	}
}
