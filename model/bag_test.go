package model

import (
	"context"
	"math"
	"slices"
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

// TestBagNoWords: without words, the model reads no hashed word or token of
// any text (no parent ids, one id per edit: its kind) and keeps every
// relational feature of the edit, the same as with words; the parent's
// features are unchanged.
func TestBagNoWords(t *testing.T) {
	lm, _ := NewNGram(3, 12)
	lm.Fit("def f(a, b):\n    return a + b\n", map[string]bool{})
	with := &BagNet{Config: DefaultBagConfig(), Bins: 5, HeadHidden: 16, LM: lm}
	cfg := DefaultBagConfig()
	cfg.Inputs.NoWords = true
	without := &BagNet{Config: cfg, Bins: 5, HeadHidden: 16, LM: lm}
	a, err := with.Encode(bagEdges())
	if err != nil {
		t.Fatal(err)
	}
	b, err := without.Encode(bagEdges())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Prefix) == 0 || len(b.Prefix) != 0 {
		t.Errorf("parent ids: %d with words, %d without; want some, then none", len(a.Prefix), len(b.Prefix))
	}
	for i := range b.Edits {
		if len(a.Edits[i]) <= 1 || len(b.Edits[i]) != 1 || b.Edits[i][0] != a.Edits[i][0] {
			t.Errorf("edit %d: ids %v with words, %v without; want only the kind's id without", i, a.Edits[i], b.Edits[i])
		}
		nonzero := 0
		for j := range a.Dense[i] {
			if a.Dense[i][j] != b.Dense[i][j] {
				t.Errorf("edit %d: dense feature %s %v with words, %v without", i, BagDense[j], a.Dense[i][j], b.Dense[i][j])
			}
			if b.Dense[i][j] != 0 {
				nonzero++
			}
		}
		if nonzero == 0 {
			t.Errorf("edit %d: no relational feature set", i)
		}
	}
	for j := range a.Features {
		if a.Features[j] != b.Features[j] {
			t.Errorf("parent feature %d: %v with words, %v without", j, a.Features[j], b.Features[j])
		}
	}
}

// TestBagSiblingFeatures: with Siblings each edit reads where it ranks
// among its parent's edits (the proposer's score, naturalness, the
// suspicion of its line) and the parent's test counts; without, the
// relational features are BagDense's alone. NoLength drops the length.
func TestBagSiblingFeatures(t *testing.T) {
	lm, _ := NewNGram(3, 12)
	lm.Fit("def f(a, b):\n    return a + b\n", map[string]bool{})
	cfg := DefaultBagConfig()
	cfg.Inputs.Siblings, cfg.Inputs.NoLength = true, true
	b, err := NewBag(cfg, 5, 16, lm, 1)
	if err != nil {
		t.Fatal(err)
	}
	edges := bagEdges()
	hi, lo := -0.5, -2.5
	edges[0].ProposerScore, edges[1].ProposerScore = &hi, &lo // the third has none
	for i := range edges {
		edges[i].Tests, edges[i].FailedFrac = 6, 0.5
	}
	enc, err := b.Net.Encode(edges)
	if err != nil {
		t.Fatal(err)
	}
	names := cfg.Dense()
	get := func(edit int, name string) float32 { return enc.Dense[edit][slices.Index(names, name)] }
	for _, c := range []struct {
		edit int
		name string
		want float32
	}{
		{0, "proposer_score", -0.5}, {0, "proposer_score_given", 1}, {0, "proposer_score_rank", 0}, {0, "proposer_score_gap", 0},
		{1, "proposer_score", -2.5}, {1, "proposer_score_rank", 1}, {1, "proposer_score_gap", -2},
		{2, "proposer_score", 0}, {2, "proposer_score_given", 0}, {2, "proposer_score_rank", 0.5},
		{0, "siblings", 3}, {0, "parent_tests_log", float32(math.Log1p(6))}, {2, "parent_failing_log", float32(math.Log1p(3))},
		// Line 3 is the diagnosis's suspect: edits 0 and 2 tie ahead of edit 1.
		{0, "susp_sibling_rank", 0.25}, {1, "susp_sibling_rank", 1}, {2, "susp_sibling_rank", 0.25},
	} {
		if got := get(c.edit, c.name); math.Abs(float64(got-c.want)) > 1e-6 {
			t.Errorf("edit %d %s = %v, want %v", c.edit, c.name, got, c.want)
		}
	}
	// The naturalness rank orders the edits as lm_delta does.
	for i := range edges {
		for j := range edges {
			if get(i, "lm_delta") > get(j, "lm_delta") && !(get(i, "lm_delta_rank") < get(j, "lm_delta_rank")) {
				t.Errorf("edit %d is more natural than %d but ranks %v against %v", i, j, get(i, "lm_delta_rank"), get(j, "lm_delta_rank"))
			}
		}
	}
	if enc.Features[3] != 0 {
		t.Errorf("NoLength: length feature %v", enc.Features[3])
	}
	plain, err := NewBag(DefaultBagConfig(), 5, 16, lm, 1)
	if err != nil {
		t.Fatal(err)
	}
	penc, err := plain.Net.Encode(edges)
	if err != nil {
		t.Fatal(err)
	}
	if len(penc.Dense[0]) != len(BagDense) || penc.Features[3] == 0 {
		t.Errorf("without the options: %d relational features, length %v", len(penc.Dense[0]), penc.Features[3])
	}
	for j := range BagDense {
		if penc.Dense[0][j] != enc.Dense[0][j] {
			t.Errorf("%s differs with the sibling features on: %v, %v", BagDense[j], penc.Dense[0][j], enc.Dense[0][j])
		}
	}
}

// TestBagPriorFeatures: with Prior the code prior scores each edit: an
// edit that writes a plain line where an odd one was gains log-probability
// and ranks first among its siblings; a checkpoint records the prior.
func TestBagPriorFeatures(t *testing.T) {
	cfg := DefaultBagConfig()
	cfg.Inputs.Prior = true
	b, err := NewBag(cfg, 5, 16, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Meta.Prior == nil || len(b.Meta.Prior.SHA256) != 64 {
		t.Fatalf("meta prior %+v", b.Meta.Prior)
	}
	par := priority.Edge{Program: "def total(xs):\n    s = 0\n    for x in xs:\n        s = s +- x\n    return s\n",
		Feedback: "FAILED", Diagnosis: "1 of 2 tests fail.", PassRate: 0.5, FailedFrac: 0.5, MaxDepth: 4, Remaining: 4}
	var edges []priority.Edge
	for _, e := range []string{
		"Line 4: change `s = s +- x` to `s = s + x`; add the element.",
		"Line 4: change `s = s +- x` to `s = s +-- x`; negate twice.",
		"Line 2: change `s = 0` to `s = 0 ** 0 ** 0`; start elsewhere.",
	} {
		ed := par
		ed.Edit = e
		edges = append(edges, ed)
	}
	enc, err := b.Net.Encode(edges)
	if err != nil {
		t.Fatal(err)
	}
	names := cfg.Dense()
	get := func(i int, name string) float32 { return enc.Dense[i][slices.Index(names, name)] }
	if !(get(0, "prior_lines_delta") > 0) || !(get(0, "prior_lines_delta") > get(1, "prior_lines_delta")) ||
		!(get(0, "prior_lines_delta") > get(2, "prior_lines_delta")) {
		t.Errorf("prior line deltas %v, %v, %v: want the plain line's highest and positive",
			get(0, "prior_lines_delta"), get(1, "prior_lines_delta"), get(2, "prior_lines_delta"))
	}
	if get(0, "prior_lines_rank") != 0 || get(0, "prior_program_mean_delta") == 0 {
		t.Errorf("rank %v, program mean delta %v", get(0, "prior_lines_rank"), get(0, "prior_program_mean_delta"))
	}
	if len(names) != len(BagDense)+len(BagPriorDense) {
		t.Errorf("%d relational features with the prior alone", len(names))
	}
}
