package policy_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"triage/corpus"
	"triage/model/priority"
	"triage/policy"
	"triage/policy/policytest"
)

// pathScorer gives every edge whose edit path (policytest's "edit [a b c]")
// starts with one of the prefixes in good the solve probability hi, and
// every other edge lo: a stand-in model that is sure where the fix is.
func pathScorer(hi, lo float64, good ...string) policy.Scorer {
	return policy.ScoreFunc(func(_ context.Context, edges []priority.Edge) ([]priority.Dist, error) {
		out := make([]priority.Dist, len(edges))
		for i, e := range edges {
			p := lo
			for _, g := range good {
				if strings.HasPrefix(e.Edit, "edit ["+g) {
					p = hi
				}
			}
			d := make(priority.Dist, e.MaxDepth+1)
			d[0] = p
			d[e.MaxDepth] = 1 - p
			out[i] = d
		}
		return out, nil
	})
}

// firstFixOf replays p on tr (seed 1, one edge per Ask) and returns the
// expansions through the first fix.
func firstFixOf(t *testing.T, tr *corpus.Tree, p policy.Policy) int {
	t.Helper()
	order, err := policytest.Replay(tr, p, 1, 1, false, false)
	if err != nil {
		t.Fatalf("%s on %s: %v", p.Name(), tr.ID, err)
	}
	for i, e := range order {
		if tr.Node(tr.Edges[e].Child).Solved() {
			return i + 1
		}
	}
	t.Fatalf("%s on %s: no fix in %d expansions", p.Name(), tr.ID, len(order))
	return 0
}

// TestHybridRecoversFromAWrongPrior: the model is sure the fix lies under
// edit 0 (then 1), but every program there fails all tests while edit 2's
// subtree improves on the root and holds the fix. Learned exhausts the
// wrong subtrees first; hybrid sees their zero pass rates and moves on.
func TestHybridRecoversFromAWrongPrior(t *testing.T) {
	tr := policytest.Exhaustive("wrong", 3, 3, func(path []int) float64 {
		switch {
		case len(path) == 0:
			return 0.3
		case slices.Equal(path, []int{2, 1, 0}):
			return 1
		case path[0] == 2:
			return 0.6
		}
		return 0
	})
	sc := pathScorer(0.9, 0.05, "0", "1")
	learned, err := policy.NewLearned(sc)
	if err != nil {
		t.Fatal(err)
	}
	hybrid, err := policy.NewHybrid(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, h := firstFixOf(t, tr, learned), firstFixOf(t, tr, hybrid)
	t.Logf("first fix: learned %d, hybrid %d expansions", l, h)
	if h >= l {
		t.Errorf("hybrid needed %d expansions, learned %d: want fewer with a wrong prior", h, l)
	}
	if 2*h > l {
		t.Errorf("hybrid needed %d expansions, want at most half of learned's %d", h, l)
	}
}

// TestHybridFollowsARightPrior: where the model points at the fix, hybrid
// stays within a couple of expansions of learned, on trees whose pass
// rates mislead (the fix path looks no better than its siblings).
func TestHybridFollowsARightPrior(t *testing.T) {
	for _, fix := range [][]int{{1}, {2, 0}, {0, 2, 1}, {1, 1, 2, 0}} {
		prefix := ""
		var goods []string
		for i, x := range fix {
			if i > 0 {
				prefix += " "
			}
			prefix += string(rune('0' + x))
			goods = append(goods, prefix+"]")
		}
		tr := policytest.Exhaustive("right", 3, 4, func(path []int) float64 {
			if slices.Equal(path, fix) {
				return 1
			}
			return 0.2 + 0.1*float64(len(path)%3)
		})
		sc := pathScorer(0.9, 0.1, goods...)
		learned, _ := policy.NewLearned(sc)
		hybrid, err := policy.NewHybrid(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		l, h := firstFixOf(t, tr, learned), firstFixOf(t, tr, hybrid)
		if l != len(fix) {
			t.Fatalf("fix %v: learned needed %d expansions, want %d (the test's prior is wrong)", fix, l, len(fix))
		}
		if h > l+2 {
			t.Errorf("fix %v: hybrid needed %d expansions, learned %d: want within 2", fix, h, l)
		}
	}
}

func TestNewHybridRejects(t *testing.T) {
	if _, err := policy.NewHybrid(nil, nil); err == nil {
		t.Error("NewHybrid(nil scorer) = nil error")
	}
	for _, p := range []policy.Params{{"C": -1}, {"temp": 0}, {"norm": 2}, {"beta": 1}} {
		if _, err := policy.NewHybrid(textScorer, p); err == nil {
			t.Errorf("NewHybrid(%v) = nil error", p)
		}
	}
	if p, err := policy.NewScored("hybrid", policy.Params{"C": 3}, textScorer); err != nil || p.Name() != "hybrid" {
		t.Errorf("NewScored(hybrid) = %v, %v", p, err)
	}
	if _, err := policy.NewScored("learned", policy.Params{"C": 3}, textScorer); err == nil {
		t.Error("NewScored(learned, C=3) = nil error")
	}
}
