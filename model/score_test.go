package model

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"triage/model/priority"
)

// byteTokenizer maps each byte to a token id below vocab.
type byteTokenizer struct{ vocab int }

func (b byteTokenizer) Encode(s string) []int32 {
	ids := make([]int32, len(s))
	for i := 0; i < len(s); i++ {
		ids[i] = int32(int(s[i]) % b.vocab)
	}
	return ids
}

// tinyLoRAModel is the fixture's base + adapter with a random head.
func tinyLoRAModel(t testing.TB, seed int64) *Model {
	t.Helper()
	m, err := Load(tinyDir, Options{Seed: seed, HeadHidden: 32})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadAdapter(adapterDir); err != nil {
		t.Fatal(err)
	}
	return m
}

func testEdges(nParents, k int) []priority.Edge {
	var edges []priority.Edge
	for p := 0; p < nParents; p++ {
		par := priority.Edge{
			Feedback:  strings.Repeat(fmt.Sprintf("FAILED test_%d: assert f(%d) == %d\n", p, p, p*p), p+1),
			Diagnosis: strings.Repeat("the loop bound is off by one; ", 2+p),
			PassRate:  float64(p%5) / 4, FailedFrac: 1 - float64(p%5)/4,
			Depth: p % 4, MaxDepth: 4, Remaining: 4 - p%4, ProgramLen: 100 * (p + 1),
		}
		for e := 0; e < k; e++ {
			ed := par
			ed.Edit = strings.Repeat(fmt.Sprintf("change line %d ", e), e+1)
			edges = append(edges, ed)
		}
	}
	return edges
}

func TestPackedEqualsUnpacked(t *testing.T) {
	m := tinyLoRAModel(t, 7)
	be := testBackend(t)
	tok := byteTokenizer{vocab: m.Config.VocabSize}
	lim := Limits{Feedback: 60, Diagnosis: 50, Edit: 20}
	packed, err := NewScorer(&Qwen3Net{M: m, Tok: tok, Limits: lim}, m.Context(), be, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer packed.Close()
	single, err := NewScorer(&Qwen3Net{M: m, Tok: tok, Limits: lim, EditsPerRow: 1}, m.Context(), be, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	edges := testEdges(3, 3)
	// A fourth parent with 5 edits: split over two packed rows.
	extra := testEdges(1, 5)
	for i := range extra {
		extra[i].Diagnosis = "another diagnosis"
	}
	edges = append(edges, extra...)
	ctx := context.Background()
	a, err := packed.Score(ctx, edges)
	if err != nil {
		t.Fatal(err)
	}
	b, err := single.Score(ctx, edges)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(edges) || len(b) != len(edges) {
		t.Fatalf("got %d and %d outputs for %d edges", len(a), len(b), len(edges))
	}
	worst := 0.0
	distinct := map[string]bool{}
	for i := range edges {
		for j := range a[i] {
			worst = math.Max(worst, math.Abs(a[i][j]-b[i][j]))
		}
		sa, err := a[i].S(edges[i].Remaining)
		if err != nil {
			t.Fatal(err)
		}
		distinct[fmt.Sprintf("%.6f", sa)] = true
		if err := a[i].Validate(); err != nil || sa < 0 || sa > 1 {
			t.Errorf("edge %d: %v, s = %g", i, err, sa)
		}
	}
	if worst > 1e-5 {
		t.Errorf("packed vs unpacked max difference %.3g > 1e-5", worst)
	}
	t.Logf("packed vs unpacked max difference %.3g", worst)
	if len(distinct) < len(edges)/2 {
		t.Errorf("only %d distinct scores over %d edges: inputs do not reach the output", len(distinct), len(edges))
	}
	// Logits, not just probabilities, agree; and scoring one edge alone matches its batch result.
	alone, err := packed.Score(ctx, edges[4:5])
	if err != nil {
		t.Fatal(err)
	}
	for j := range alone[0] {
		if d := math.Abs(alone[0][j] - a[4][j]); d > 1e-5 {
			t.Errorf("edge scored alone differs by %.3g", d)
		}
	}
}

func TestScoreErrors(t *testing.T) {
	m := tinyLoRAModel(t, 1)
	s, err := NewScorer(&Qwen3Net{M: m, Tok: byteTokenizer{vocab: 512}}, m.Context(), testBackend(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	bad := testEdges(1, 1)
	bad[0].Remaining = 0
	if _, err := s.Score(ctx, bad); err == nil {
		t.Error("b = 0 accepted")
	}
	bad = testEdges(1, 1)
	bad[0].MaxDepth, bad[0].Remaining = 6, 6
	if _, err := s.Score(ctx, bad); err == nil {
		t.Error("depth limit above the model's accepted")
	}
	if _, err := s.ScoreEncoded(ctx, []Encoded{{Prefix: []int32{1, 9999}, Edits: [][]int32{{1}}, B: []int{1}}}); err == nil {
		t.Error("out-of-vocabulary token accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Score(cctx, testEdges(1, 1)); err == nil {
		t.Error("cancelled context ignored")
	}
	if out, err := s.Score(ctx, nil); err != nil || len(out) != 0 {
		t.Errorf("no edges: %v, %v", out, err)
	}
}
