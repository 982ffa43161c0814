package sandbox

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"triage/corpus"
)

// TestParityWithPytest compares the pool's per-test verdicts with
// `python3 -m pytest` run one process per pair, on every embedded
// (program, tests) pair (110: passing references, failing mutants,
// crashing and non-importing programs); -short uses every 8th pair.
func TestParityWithPytest(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	suites, err := BenchSuites()
	if err != nil {
		t.Fatal(err)
	}
	if len(suites) < 100 {
		t.Fatalf("only %d parity pairs", len(suites))
	}
	if testing.Short() {
		var sub []Suite
		for i := 0; i < len(suites); i += 8 {
			sub = append(sub, suites[i])
		}
		suites = sub
	}
	p := testPool(t)
	// A generous reference limit: per-process pytest is slow on a loaded machine,
	// and no pair of the set loops forever.
	ref := PerProcess{Timeout: 60 * time.Second}
	ctx := context.Background()
	ours := make([]corpus.Execution, len(suites))
	theirs := make([]corpus.Execution, len(suites))
	errs := make([]error, len(suites))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, s := range suites {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var e1, e2 error
			ours[i], e1 = p.Run(ctx, s.Program, s.Tests)
			theirs[i], e2 = ref.Run(ctx, s.Program, s.Tests)
			if e1 != nil {
				errs[i] = e1
			} else {
				errs[i] = e2
			}
		}()
	}
	wg.Wait()
	statuses := map[corpus.Status]int{}
	solved := 0
	for i, s := range suites {
		if errs[i] != nil {
			t.Errorf("%s: %v", s.Name, errs[i])
			continue
		}
		statuses[ours[i].Status]++
		if ours[i].Solved() {
			solved++
		}
		if same, why := SameVerdicts(ours[i], theirs[i]); !same {
			t.Errorf("%s: verdicts differ: %s\nours:\n%s\npytest:\n%s", s.Name, why, ours[i].Feedback, theirs[i].Feedback)
		}
	}
	t.Logf("%d pairs: %d solved, statuses %v", len(suites), solved, statuses)
	if !testing.Short() && (solved == 0 || solved == len(suites) || statuses[corpus.StatusCrash] == 0 || statuses[corpus.StatusLoadError] == 0) {
		t.Errorf("parity set is not mixed: %d solved, statuses %v", solved, statuses)
	}
}

func TestPerProcessTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a pytest process")
	}
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	ex, err := PerProcess{Timeout: time.Second}.Run(context.Background(), "def f():\n    while True:\n        pass\n", "from solution import f\ndef test_f():\n    f()\n")
	if err != nil {
		t.Fatal(err)
	}
	if ex.Status != corpus.StatusTimeout || ex.Solved() {
		t.Errorf("status %s solved %v, want timeout", ex.Status, ex.Solved())
	}
}
