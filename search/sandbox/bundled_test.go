package sandbox

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/bundled"
	"triage/corpus/mbpp"
)

// TestBundledReferencesConfirmed runs every third bundled reference (every
// one with TRIAGE_SANDBOX_ALL_BUNDLED=1) through the pool: each passes under
// pytest and is confirmed by the re-check (no false tamper), and its test
// file collects without a program.
func TestBundledReferencesConfirmed(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the bundled references")
	}
	all, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	var tasks []corpus.Task
	for i, task := range all {
		if i%3 == 0 || os.Getenv("TRIAGE_SANDBOX_ALL_BUNDLED") == "1" {
			tasks = append(tasks, task)
		}
	}
	p := testPool(t)
	var wg sync.WaitGroup
	sem := make(chan struct{}, p.Options().Workers)
	for _, task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ex, err := p.Run(context.Background(), task.Solution, task.Test)
			if err != nil {
				t.Errorf("%s: %v", task.ID, err)
				return
			}
			if !ex.Solved() {
				t.Errorf("%s: reference not solved (%s):\n%s", task.ID, ex.Status, ex.Feedback)
			}
		}()
	}
	wg.Wait()
	p.expMu.Lock()
	known := 0
	for _, e := range p.expected {
		if e.known {
			known++
		}
	}
	p.expMu.Unlock()
	if known < len(tasks) {
		t.Errorf("only %d test files have reference ids, want ≥ %d", known, len(tasks))
	}
}

// TestReferenceIDsFromTextMatchCollection: the bundled test files and every
// 8th MBPP one, most of which the worker reads ids from (static_test_ids:
// plain files, with test classes, fixtures of their own and parameter sets
// of literals): the ids are those pytest collects from each with the
// stand-in program (a pool with the shortcut off), in the same order.
func TestReferenceIDsFromTextMatchCollection(t *testing.T) {
	tasks, err := bundled.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	more, err := mbpp.Tasks()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(more); i += 8 {
		tasks = append(tasks, more[i])
	}
	fromText := ownPool(t, Options{Workers: 2, Timeout: 10 * time.Second})
	collected := ownPool(t, Options{Workers: 2, Timeout: 10 * time.Second, disabled: layerSet{layerStaticIDs: true}})
	type pair struct {
		id        string
		got, want expectation
	}
	results := make([]pair, len(tasks))
	var wg sync.WaitGroup
	for i, task := range tasks {
		wg.Add(1)
		go func() { // the pools' slots bound how many run at once
			defer wg.Done()
			expect := func(p *Pool) expectation {
				e, err := expectOn(t, p, task.Test)
				if err != nil {
					t.Errorf("%s: %v", task.ID, err)
				}
				return e
			}
			results[i] = pair{task.ID, expect(fromText), expect(collected)}
		}()
	}
	wg.Wait()
	if n := collected.staticIDs.Load(); n != 0 {
		t.Fatalf("%d test files read from their text with the shortcut off", n)
	}
	n := fromText.staticIDs.Load()
	if n < int64(len(tasks))*9/10 {
		t.Errorf("only %d of %d test files read from their text", n, len(tasks))
	}
	t.Logf("%d of %d test files read from their text", n, len(tasks))
	for _, r := range results {
		if !r.want.known {
			t.Errorf("%s: pytest's collection gave no ids (%s)", r.id, r.want.why)
			continue
		}
		if !r.got.known || !slices.Equal(r.got.ids, r.want.ids) {
			t.Errorf("%s: ids %v (%s), pytest collects %v", r.id, r.got.ids, r.got.why, r.want.ids)
		}
	}
}
