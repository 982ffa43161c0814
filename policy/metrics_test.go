package policy_test

import (
	"math"
	"testing"

	"triage/policy"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestSummarize checks E[T], tokens, S, C and AUSC against hand values:
// tree a (task 1) solved at T=2; tree b (task 2) at T=5; tree c (task 2)
// unsolved; tree d (task 3) solved at 1 by one seed and 3 by the other.
func TestSummarize(t *testing.T) {
	outs := []policy.Outcome{
		{TaskID: "1", TreeID: "a", Solved: true, T: 2, Tokens: 100},
		{TaskID: "2", TreeID: "b", Solved: true, T: 5, Tokens: 300},
		{TaskID: "2", TreeID: "c", Solved: false, T: 9, Tokens: 900},
		{TaskID: "3", TreeID: "d", Seed: 1, Solved: true, T: 1, Tokens: 10},
		{TaskID: "3", TreeID: "d", Seed: 2, Solved: true, T: 3, Tokens: 30},
	}
	sm, err := policy.Summarize(outs, []int{1, 4}, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	// E[T] over solved trees a, b, d: (2 + 5 + 2) / 3.
	if !near(sm.ET, 3) || !near(sm.Tokens, (100+300+20)/3.0) {
		t.Errorf("ET = %v, tokens = %v; want 3, 140", sm.ET, sm.Tokens)
	}
	// S(4): a=1, b=0, c=0, d=1 → 0.5; S(1): d=0.5 → 0.125.
	if !near(sm.S["4"], 0.5) || !near(sm.S["1"], 0.125) {
		t.Errorf("S = %v", sm.S)
	}
	// C(4) = mean min(T, 4): a 2, b 4, c 4, d (1+3)/2 = 2 → 3.
	if !near(sm.C["4"], 3) || !near(sm.C["1"], 1) {
		t.Errorf("C = %v", sm.C)
	}
	// AUSC(4) = (S1+S2+S3+S4)/4 per tree: a (0+1+1+1)/4, b 0, c 0,
	// d (.5+.5+1+1)/4 → (0.75 + 0.75)/4.
	if !near(sm.AUSC["4"], 0.375) {
		t.Errorf("AUSC(4) = %v, want 0.375", sm.AUSC["4"])
	}
	if sm.Trees != 4 || sm.Tasks != 3 || sm.Solved != 3 {
		t.Errorf("trees/tasks/solved = %d/%d/%d", sm.Trees, sm.Tasks, sm.Solved)
	}
	if sm.ETSE <= 0 || sm.SSE["4"] <= 0 {
		t.Errorf("standard errors should be > 0 with 3 differing tasks: %v %v", sm.ETSE, sm.SSE)
	}
	if len(sm.Curve) != 5 || !near(sm.Curve[4], sm.S["4"]) {
		t.Errorf("curve = %v", sm.Curve)
	}
	// One task: the bootstrap has nothing to vary.
	one, err := policy.Summarize(outs[:1], []int{4}, 50, 1)
	if err != nil {
		t.Fatal(err)
	}
	if one.ETSE != 0 || one.SSE["4"] != 0 {
		t.Errorf("single task SE = %v, %v; want 0", one.ETSE, one.SSE["4"])
	}
	if _, err := policy.Summarize(outs, nil, 0, 0); err == nil {
		t.Error("no budgets: nil error")
	}
	if _, err := policy.Summarize(outs, []int{0}, 0, 0); err == nil {
		t.Error("budget 0: nil error")
	}
}
