package model

import (
	"context"
	"testing"

	"triage/model/priority"
)

func bagEdges() []priority.Edge {
	par := priority.Edge{Feedback: "FAILED test_x - assert 2 == 3", Diagnosis: "1 of 2 tests fail.\nSuspicious lines (Ochiai):\n- line 3 (0.90): `return a - b`\nMost likely the fault is on line 3; hint.",
		Program: "def f(a, b):\n    c = a + b\n    return a - b\n", PassRate: 0.5, FailedFrac: 0.5, Depth: 0, MaxDepth: 4, Remaining: 4}
	var out []priority.Edge
	for _, e := range []string{
		"Line 3: change `return a - b` to `return a + b`; test_x expects 3 but got 2, so the value is wrong.",
		"Line 2: change `c = a + b` to `c = a - b`; test_x expects 3 but got 2, so the arithmetic step is wrong.",
		"Line 3: use `c` instead of `a` in `return a - b`; test_x expects 3 but got 2, so it reads the wrong variable.",
	} {
		ed := par
		ed.Edit = e
		out = append(out, ed)
	}
	return out
}

func TestBagScores(t *testing.T) {
	lm, _ := NewNGram(3, 12)
	lm.Fit("def f(a, b):\n    return a + b\n", map[string]bool{})
	b, err := NewBag(DefaultBagConfig(), 5, 16, lm, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Scorer(testBackend(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Score(context.Background(), bagEdges())
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 {
		t.Fatalf("%d outputs", len(out))
	}
	for _, d := range out {
		if err := d.Validate(); err != nil || len(d) != 5 {
			t.Errorf("dist %v: %v", d, err)
		}
	}
}
