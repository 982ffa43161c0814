package model

import (
	"context"
	"fmt"
	"math"
	"testing"

	"triage/model/priority"
)

// TestBagForwardMatchesGraph checks the Go forward pass of the bag model
// against its GoMLX graph, logit by logit, on groups of several shapes:
// edits of different lengths, a parent without text, an edit without ids,
// dense values far outside the statistics (clipped) and one group more
// than a graph batch holds.
func TestBagForwardMatchesGraph(t *testing.T) {
	for _, siblings := range []bool{false, true} {
		t.Run(fmt.Sprintf("siblings=%v", siblings), func(t *testing.T) { testBagForwardMatchesGraph(t, siblings) })
	}
}

func testBagForwardMatchesGraph(t *testing.T, siblings bool) {
	lm, _ := NewNGram(3, 12)
	lm.Fit("def f(a, b):\n    return a + b\n", map[string]bool{})
	cfg := DefaultBagConfig()
	cfg.Inputs.Siblings = siblings
	b, err := NewBag(cfg, 5, 16, lm, 7)
	if err != nil {
		t.Fatal(err)
	}
	nd := len(cfg.Dense())
	mean := make([]float32, nd)
	std := make([]float32, nd)
	for i := range mean {
		mean[i], std[i] = float32(i)*0.1-1, 0.5+float32(i%3)
	}
	if err := SetDenseStats(b.Ctx, cfg, mean, std); err != nil {
		t.Fatal(err)
	}
	if err := SetFeatureStats(b.Ctx, [NumFeatures]float32{0.2, 0.6, 0.8, 0.7}, [NumFeatures]float32{0.2, 0.2, 0.2, 0.1}); err != nil {
		t.Fatal(err)
	}
	var groups []Encoded
	for i, edges := range [][]priority.Edge{bagEdges(), bagEdges()[:1], variedEdges(11)} {
		g, err := b.Net.Encode(edges)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			g.Prefix = nil       // a parent without text
			g.Edits[0] = nil     // an edit without ids
			g.Dense[0][0] = 1e6  // far outside: clipped
			g.Features[2] = -1e6 // likewise
		}
		groups = append(groups, g)
	}
	graph, err := b.Scorer(testBackend(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	if graph.bag != nil {
		t.Fatal("a bundle without variables was scored in Go")
	}
	want, err := graph.Logits(context.Background(), groups)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := b.Scorer(testBackend(t), 2) // the graph made the variables
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if direct.bag == nil {
		t.Fatal("a bag scorer with variables does not use the Go forward pass")
	}
	got, err := direct.Logits(context.Background(), groups)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for g := range want {
		for e := range want[g] {
			for k, w := range want[g][e] {
				n++
				if d := math.Abs(float64(got[g][e][k] - w)); d > 1e-4*(1+math.Abs(float64(w))) {
					t.Errorf("group %d edit %d bin %d: Go %g, graph %g", g, e, k, got[g][e][k], w)
				}
			}
		}
	}
	if n != 5*(3+1+11) {
		t.Errorf("%d logits compared", n)
	}
}

// variedEdges returns n edits of one parent, of different lengths.
func variedEdges(n int) []priority.Edge {
	base := bagEdges()[0]
	out := make([]priority.Edge, n)
	for i := range out {
		out[i] = base
		out[i].Edit = base.Edit
		for j := 0; j < i; j++ {
			out[i].Edit += " and then `x" + string(rune('a'+j)) + " = b`"
		}
	}
	return out
}

func TestBagForwardRejectsBadIDs(t *testing.T) {
	f := &bagForward{embed: 2, emb: make([]float32, 8)}
	dst := make([]float32, 2)
	for _, ids := range [][]int32{{-1}, {4}, {1, 1 << 30}} {
		if err := f.pool(dst, ids); err == nil {
			t.Errorf("ids %v pooled", ids)
		}
	}
	if err := f.pool(dst, []int32{3}); err != nil {
		t.Error(err)
	}
}
