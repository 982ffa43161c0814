package policy

import (
	"fmt"
	"math"
	"testing"
)

func TestComparePaired(t *testing.T) {
	// Two tasks; A is one expansion faster on every tree; tree t3 is
	// unsolved by B under one seed and is left out.
	a := []Outcome{
		{TaskID: "x", TreeID: "t1", Seed: 1, Solved: true, T: 2},
		{TaskID: "x", TreeID: "t1", Seed: 2, Solved: true, T: 4},
		{TaskID: "x", TreeID: "t2", Seed: 1, Solved: true, T: 5},
		{TaskID: "y", TreeID: "t3", Seed: 1, Solved: true, T: 1},
		{TaskID: "y", TreeID: "t4", Seed: 1, Solved: true, T: 9},
	}
	b := []Outcome{
		{TaskID: "x", TreeID: "t1", Seed: 1, Solved: true, T: 4},
		{TaskID: "x", TreeID: "t2", Seed: 1, Solved: true, T: 6},
		{TaskID: "y", TreeID: "t3", Seed: 1, Solved: false, T: 36},
		{TaskID: "y", TreeID: "t4", Seed: 1, Solved: true, T: 10},
	}
	p, err := ComparePaired("a", a, "b", b, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Common trees t1 (3 vs 4), t2 (5 vs 6), t4 (9 vs 10).
	if p.Trees != 3 || p.Tasks != 2 {
		t.Fatalf("trees %d tasks %d, want 3 and 2", p.Trees, p.Tasks)
	}
	if math.Abs(p.Diff+1) > 1e-12 || math.Abs(p.Ratio-17.0/20) > 1e-12 {
		t.Fatalf("diff %v ratio %v, want -1 and 0.85", p.Diff, p.Ratio)
	}
	// Every tree differs by exactly one: every bootstrap draw does too.
	if p.DiffSE > 1e-12 {
		t.Errorf("diff SE %v, want 0", p.DiffSE)
	}
	if !(p.RatioLo <= p.Ratio && p.Ratio <= p.RatioHi) || p.RatioLo < 0.8 || p.RatioHi > 0.9 {
		t.Errorf("ratio interval [%v, %v] around %v", p.RatioLo, p.RatioHi, p.Ratio)
	}
	// The detectable ratio follows the bootstrap SE of the log ratio, and
	// more clusters of the same spread make it closer to 1.
	if p.LogRatioSE <= 0 || math.Abs(p.Detectable-math.Exp(-2.801585*p.LogRatioSE)) > 1e-6 || p.Detectable >= 1 {
		t.Errorf("log ratio SE %v, detectable %v", p.LogRatioSE, p.Detectable)
	}
	var many, manyB []Outcome
	for i := range 40 {
		for _, o := range a {
			o.TaskID += fmt.Sprint(i)
			many = append(many, o)
		}
		for _, o := range b {
			o.TaskID += fmt.Sprint(i)
			manyB = append(manyB, o)
		}
	}
	q, err := ComparePaired("a", many, "b", manyB, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !(q.Detectable > p.Detectable) || q.Detectable >= 1 {
		t.Errorf("detectable with 80 tasks %v, with 2 tasks %v: want closer to 1 with more", q.Detectable, p.Detectable)
	}
	if _, err := ComparePaired("a", a[:1], "b", b[2:3], 10, 1); err == nil {
		t.Error("no common solved tree accepted")
	}
}
