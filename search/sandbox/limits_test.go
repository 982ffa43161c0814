package sandbox

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"triage/corpus"
)

// popcount is a task whose reference loops over bits; its mutant that
// shifts by 0 instead of 1 never ends, as mutants of such loops do.
var popcount = corpus.Task{ID: "popcount",
	Solution: "def popcount(n):\n    c = 0\n    while n:\n        c += n & 1\n        n >>= 1\n    return c\n",
	Test: "from solution import popcount\n\ndef test_small():\n    assert popcount(5) == 2\n\n" +
		"def test_zero():\n    assert popcount(0) == 0\n\ndef test_big():\n    assert popcount(2**40 - 1) == 40\n"}

const popcountLoop = "def popcount(n):\n    c = 0\n    while n:\n        c += n & 1\n        n >>= 0\n    return c\n"

// TestAdaptiveLimitStopsLoopingMutant: the task's adaptive limit (from its
// reference's measured time) is below the cap, and the looping mutant run
// under it returns timeout within the limit plus the pool's kill margin
// (outerGrace, then up to a second to clear the worker's cgroup), not after
// the pool's default limit.
func TestAdaptiveLimitStopsLoopingMutant(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	p, err := New(Options{Workers: 1}) // the pool's own limit: the default 10 s
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	limits := corpus.DefaultTimeLimits()
	check, err := corpus.CheckTask(ctx, p, &popcount, corpus.CheckOptions{ReferenceRuns: 3, Limits: limits, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	if !check.Valid() || check.Limit < limits.Floor || check.Limit >= limits.Cap {
		t.Fatalf("check %+v: want a valid task with a limit in [floor %v, cap %v)", check, limits.Floor, limits.Cap)
	}
	for _, cov := range []bool{false, true} {
		start := time.Now()
		ex, err := p.RunWith(ctx, popcountLoop, popcount.Test, corpus.RunOptions{Timeout: check.Limit, Coverage: cov})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != corpus.StatusTimeout || ex.PassRate != 0 {
			t.Errorf("coverage %v: status %s pass rate %v, want timeout", cov, ex.Status, ex.PassRate)
		}
		margin := outerGrace + time.Second
		if took > check.Limit+margin {
			t.Errorf("coverage %v: the looping mutant took %v, more than its limit %v plus the kill margin %v", cov, took, check.Limit, margin)
		}
		t.Logf("coverage %v: reference %.1f ms, limit %v, looping mutant returned %s after %v", cov, check.ReferenceMS, check.Limit, ex.Status, took.Round(time.Millisecond))
	}
	// The reference itself still passes under its limit, with and without
	// coverage, and per-run coverage is what was asked for.
	for _, cov := range []bool{false, true} {
		ex, err := p.RunWith(ctx, popcount.Solution, popcount.Test, corpus.RunOptions{Timeout: check.Limit, Coverage: cov})
		if err != nil {
			t.Fatal(err)
		}
		if !ex.Solved() {
			t.Errorf("coverage %v: reference %s under its own limit", cov, ex.Status)
		}
		if got := ex.Tests[0].Lines != nil; got != cov {
			t.Errorf("coverage %v: lines %v", cov, ex.Tests[0].Lines)
		}
	}
}
