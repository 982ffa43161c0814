package policy_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"triage/corpus"
	"triage/policy"
	"triage/policy/policytest"
)

// expansions replays tr with ep, asking for n edges an expansion and
// ending each expansion once its edges are told; it returns the order.
func expansions(t *testing.T, tr *corpus.Tree, ep policy.Expansions, n int) []corpus.EdgeID {
	t.Helper()
	fr := slices.Clone(tr.Root().Edges)
	var order []corpus.EdgeID
	for len(fr) > 0 {
		got, err := ep.Ask(context.Background(), fr, n)
		if err != nil || len(got) == 0 {
			t.Fatalf("ask after %d: %v, %v", len(order), got, err)
		}
		solved := false
		for _, e := range got {
			c := tr.Node(tr.Edges[e].Child)
			if err := ep.Tell(e, c); err != nil {
				t.Fatal(err)
			}
			order = append(order, e)
			fr = slices.DeleteFunc(fr, func(x corpus.EdgeID) bool { return x == e })
			fr = append(fr, c.Edges...)
			solved = solved || c.Solved()
		}
		ep.EndExpansion()
		if solved {
			break
		}
	}
	return order
}

// TestUCTExpansionOfOneIsUCT: with one child an expansion, UCTExpansion
// makes uct's choices (its selection and update are uct's), and with k
// children it expands one node's k edges an ask.
func TestUCTExpansionOfOneIsUCT(t *testing.T) {
	uct := policy.UCT{C: 0.7, Beta: 0.8}
	for _, tr := range []*corpus.Tree{
		policytest.Exhaustive("deep", 3, 4, policytest.FixAt(0.3, 2, 1, 0, 2)),
		policytest.Exhaustive("graded", 3, 3, func(path []int) float64 { return 0.1 * float64(len(path)) }),
		policytest.Exhaustive("flat", 4, 3, func([]int) float64 { return 0.5 }), // ties everywhere
	} {
		for _, seed := range []uint64{1, 7, 42} {
			want, err := policytest.Replay(tr, uct, seed, 1, false, false)
			if err != nil {
				t.Fatal(err)
			}
			got := expansions(t, tr, policy.UCTExpansion{UCT: uct}.StartExpansions(tr, seed), 1)
			if !slices.Equal(got, want) {
				t.Errorf("%s seed %d: UCTExpansion of 1 chose %v, uct %v", tr.ID, seed, got, want)
			}
			batch := expansions(t, tr, policy.UCTExpansion{UCT: uct}.StartExpansions(tr, seed), tr.K)
			for i := 0; i < len(batch); i += tr.K {
				for _, e := range batch[i:min(i+tr.K, len(batch))] {
					if tr.Edges[e].Parent != tr.Edges[batch[i]].Parent {
						t.Errorf("%s seed %d: expansion %d mixes parents: %v", tr.ID, seed, i/tr.K, batch[i:min(i+tr.K, len(batch))])
					}
				}
			}
		}
	}
}

// TestUCTExpansionUpdate checks one backup per expansion by hand: the
// root's two children (rewards 0.35 and 0.5 from Reward) leave the root at
// N = 1 and V = its reward; expanding the better child b then gives b N = 1
// and the root N = 2 and V = 0.8·0.5 + 0.2·0.
func TestUCTExpansionUpdate(t *testing.T) {
	tr := policytest.Exhaustive("h", 2, 2, func(path []int) float64 {
		switch {
		case len(path) == 0:
			return 0.9 // the root's pass rate; its reward is 0
		case len(path) == 1 && path[0] == 0:
			return 0.35
		}
		return 0.5
	})
	reward := func(n *corpus.Node) float64 {
		if n.ID == 0 {
			return 0
		}
		return n.Exec.PassRate
	}
	ep := policy.UCTExpansion{UCT: policy.UCT{C: 0.7, Beta: 0.8}, Reward: reward}.StartExpansions(tr, 1)
	fr := slices.Clone(tr.Root().Edges)
	got, err := ep.Ask(context.Background(), fr, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("first ask: %v, %v", got, err)
	}
	for _, e := range got {
		if err := ep.Tell(e, tr.Node(tr.Edges[e].Child)); err != nil {
			t.Fatal(err)
		}
	}
	if q, n := ep.Value(0); q != 0 || n != 0 {
		t.Errorf("root before the backup: V %v N %d", q, n)
	}
	ep.EndExpansion()
	if q, n := ep.Value(0); q != 0 || n != 1 {
		t.Errorf("root after expansion 1: V %v N %d, want 0 1", q, n)
	}
	a, b := tr.Edges[got[0]].Child, tr.Edges[got[1]].Child
	fr = append(slices.Clone(tr.Node(a).Edges), tr.Node(b).Edges...)
	got, err = ep.Ask(context.Background(), fr, 2)
	if err != nil || len(got) != 2 || tr.Edges[got[0]].Parent != b {
		t.Fatalf("second ask: %v, %v; want b's edges", got, err)
	}
	ep.EndExpansion() // nothing told: still one backup of b's expansion
	qb, nb := ep.Value(b)
	q, n := ep.Value(0)
	if qb != 0.5 || nb != 1 || n != 2 || math.Abs(q-0.8*0.5) > 1e-12 {
		t.Errorf("after expansion 2: b V %v N %d, root V %v N %d; want 0.5 1, 0.4 2", qb, nb, q, n)
	}
}
