package search_test

import (
	"context"
	"testing"

	"triage/corpus"
	"triage/policy/policytest"
	"triage/search"
)

// TestSessionDrop: a dropped edge leaves the outstanding asks, costs no
// budget, cannot be told or dropped again and does not return to the
// frontier.
func TestSessionDrop(t *testing.T) {
	tr := policytest.Exhaustive("d", 2, 2, func([]int) float64 { return 0.5 })
	sess, err := search.NewSession(tr, mustPolicy(t, "bfs"), search.SessionConfig{Budget: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	asked, err := sess.Ask(ctx, 2)
	if err != nil || len(asked) != 2 {
		t.Fatalf("ask 2: %v, %v", asked, err)
	}
	e0, e1 := asked[0], asked[1]
	if err := sess.Drop(e1); err != nil {
		t.Fatal(err)
	}
	if sess.Edge(e1) != search.EdgeDropped || sess.Outstanding() != 1 {
		t.Errorf("after the drop: edge state %v, outstanding %d", sess.Edge(e1), sess.Outstanding())
	}
	for name, err := range map[string]error{
		"drop twice":        sess.Drop(e1),
		"tell a dropped":    sess.Tell(e1, tr.Edges[e1].Child),
		"drop a never-sent": sess.Drop(tr.Nodes[tr.Edges[e0].Child].Edges[0]),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := sess.Tell(e0, tr.Edges[e0].Child); err != nil {
		t.Fatal(err)
	}
	for _, e := range sess.Frontier() {
		if e == e1 {
			t.Errorf("the dropped edge %d is back in the frontier %v", e1, sess.Frontier())
		}
	}
	// The drop cost nothing: one expansion of the budget of 2 is left.
	asked, err = sess.Ask(ctx, 5)
	if err != nil || len(asked) != 1 || sess.State() != search.Running {
		t.Errorf("ask after the drop: %v, %v, state %s", asked, err, sess.State())
	}
}

// TestSessionUntilBudget: with UntilBudget a fix does not end the search;
// it ends at the budget or an empty frontier, Solved when a fix was told.
func TestSessionUntilBudget(t *testing.T) {
	// Both children of the root pass; their own children are never made.
	tr := policytest.Exhaustive("u", 2, 2, func(path []int) float64 {
		if len(path) == 1 {
			return 1
		}
		return 0.2
	})
	for _, c := range []struct {
		name        string
		cfg         search.SessionConfig
		afterFirst  search.State
		afterSecond search.State
	}{
		{"first fix ends", search.SessionConfig{}, search.Solved, ""},
		{"until the frontier ends", search.SessionConfig{UntilBudget: true}, search.Running, search.Solved},
		{"until the budget", search.SessionConfig{UntilBudget: true, Budget: 1}, search.Solved, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sess, err := search.NewSession(tr, mustPolicy(t, "bfs"), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var fix corpus.NodeID = corpus.NoNode
			for i, want := range []search.State{c.afterFirst, c.afterSecond} {
				if want == "" {
					if got, _ := sess.Ask(context.Background(), 1); len(got) != 0 {
						t.Errorf("ask %d after the end: %v", i+1, got)
					}
					break
				}
				got, err := sess.Ask(context.Background(), 1)
				if err != nil || len(got) != 1 {
					t.Fatalf("ask %d: %v, %v", i+1, got, err)
				}
				if err := sess.Tell(got[0], tr.Edges[got[0]].Child); err != nil {
					t.Fatal(err)
				}
				if fix == corpus.NoNode {
					fix = tr.Edges[got[0]].Child
				}
				if sess.State() != want || sess.Fix() != fix {
					t.Errorf("after tell %d: state %s fix %d, want %s fix %d", i+1, sess.State(), sess.Fix(), want, fix)
				}
			}
		})
	}
}
