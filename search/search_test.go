package search_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"triage/corpus"
	"triage/policy"
	"triage/policy/policytest"
	"triage/search"
)

func mustPolicy(t *testing.T, name string) policy.Policy {
	t.Helper()
	p, err := policy.New(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunReplay(t *testing.T) {
	// k=2, D=2, fix at [1 0]: bfs expands [0] [1] [0 0] [0 1] [1 0].
	tr := policytest.Exhaustive("t", 2, 2, policytest.FixAt(0.2, 1, 0))
	env, err := search.NewReplay(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		cfg      search.Config
		wantEnd  search.State
		solved   bool
		expanded int
	}{
		{"unlimited", search.Config{}, search.Solved, true, 5},
		{"budget 5", search.Config{Budget: 5}, search.Solved, true, 5},
		{"budget 4", search.Config{Budget: 4}, search.BudgetExhausted, false, 4},
		{"batch 3", search.Config{Batch: 3}, search.Solved, true, 5},
		{"batch 3 budget 4", search.Config{Batch: 3, Budget: 4}, search.BudgetExhausted, false, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := search.Run(context.Background(), env, mustPolicy(t, "bfs"), c.cfg)
			if err != nil || res.End != c.wantEnd {
				t.Fatalf("end %q, err %v; want %q", res.End, err, c.wantEnd)
			}
			if res.Solved != c.solved || res.Expansions != c.expanded || len(res.Order) != c.expanded {
				t.Errorf("solved %v expansions %d order %v; want %v %d", res.Solved, res.Expansions, res.Order, c.solved, c.expanded)
			}
			// Tokens: root proposal 20, then 30 per expansion.
			if want := 20 + 30*c.expanded; res.Tokens != want {
				t.Errorf("tokens = %d, want %d", res.Tokens, want)
			}
			if c.solved && res.Fix != tr.Edges[res.Order[len(res.Order)-1]].Child {
				t.Errorf("fix = %d", res.Fix)
			}
		})
	}
	nofix := policytest.Exhaustive("n", 2, 2, func([]int) float64 { return 0.5 })
	env, _ = search.NewReplay(nofix)
	res, err := search.Run(context.Background(), env, mustPolicy(t, "dfs"), search.Config{Trace: true})
	if err != nil || res.End != search.FrontierEmpty || res.Expansions != len(nofix.Edges) {
		t.Errorf("no fix: end %q, err %v, expansions %d of %d", res.End, err, res.Expansions, len(nofix.Edges))
	}
	if len(res.Frontiers) != res.Expansions || len(res.Frontiers[0]) != 2 {
		t.Errorf("trace: %d frontiers, first %v", len(res.Frontiers), res.Frontiers[0])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := search.Run(ctx, env, mustPolicy(t, "bfs"), search.Config{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestEveryPolicyReplay: every baseline finds the fix of exhaustive trees
// within their size, through the loop, with the same result twice.
func TestEveryPolicyReplay(t *testing.T) {
	trees := []*corpus.Tree{
		policytest.Exhaustive("a", 3, 4, policytest.FixAt(0.3, 2, 2, 2, 2)),
		policytest.Exhaustive("b", 3, 3, policytest.FixAt(0.5, 0, 1)),
	}
	for _, name := range policy.Baselines {
		p := mustPolicy(t, name)
		var a, b []search.Result
		for _, tr := range trees {
			env, err := search.NewReplay(tr)
			if err != nil {
				t.Fatal(err)
			}
			for _, seed := range []uint64{1, 2} {
				for _, into := range []*[]search.Result{&a, &b} {
					res, err := search.Run(context.Background(), env, p, search.Config{Seed: seed})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					*into = append(*into, res)
				}
			}
		}
		for i := range a {
			tr := trees[i/2]
			if !a[i].Solved || a[i].Expansions > len(tr.Edges) {
				t.Errorf("%s %s: solved %v after %d", name, tr.ID, a[i].Solved, a[i].Expansions)
			}
			if !slices.Equal(a[i].Order, b[i].Order) {
				t.Errorf("%s %s: runs differ", name, tr.ID)
			}
		}
	}
}

// fakeProposer proposes k edits "set N" and revises by returning the
// program "N"; fakeExec passes when the program is "7".
type fakeProposer struct{}

func (fakeProposer) Propose(_ context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
	var p corpus.Proposal
	p.Diagnosis = "wrong value " + req.Program
	for i := 0; i < req.K; i++ {
		p.Edits = append(p.Edits, corpus.ProposedEdit{Text: fmt.Sprintf("set %d", len(req.Key)%5+i*3)})
	}
	p.OutputTokens = 5
	return p, nil
}

func (fakeProposer) Revise(_ context.Context, req corpus.ReviseRequest) (corpus.Revision, error) {
	if req.Edit.Text == "set 0" {
		return corpus.Revision{Failed: true, Raw: "??", OutputTokens: 1}, nil
	}
	return corpus.Revision{Program: strings.TrimPrefix(req.Edit.Text, "set "), OutputTokens: 2}, nil
}

var fakeExec = corpus.ExecutorFunc(func(_ context.Context, program, _ string) (corpus.Execution, error) {
	ok := program == "7"
	ex := corpus.Execution{Status: corpus.StatusOK, Tests: []corpus.TestResult{{Name: "t", Passed: ok}}}
	if ok {
		ex.PassRate = 1
	} else {
		ex.FailedFrac = 1
	}
	return ex, nil
})

func TestRunLive(t *testing.T) {
	task := &corpus.Task{ID: "x", Test: "def test_t(): pass"}
	for _, name := range policy.Baselines {
		env, err := search.NewLive(context.Background(), task, "0", fakeProposer{}, fakeExec, search.LiveOptions{K: 3, D: 3})
		if err != nil {
			t.Fatal(err)
		}
		res, err := search.Run(context.Background(), env, mustPolicy(t, name), search.Config{Budget: 40, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tr := env.Tree()
		if len(tr.Nodes) != res.Expansions+1 {
			t.Errorf("%s: %d nodes after %d expansions", name, len(tr.Nodes), res.Expansions)
		}
		for i, e := range res.Order {
			c := tr.Node(res.Children[i])
			if tr.Edges[e].Child != c.ID || c.ViaEdge != e || c.Depth != tr.Node(tr.Edges[e].Parent).Depth+1 {
				t.Errorf("%s: edge %d child %+v inconsistent", name, e, c)
			}
			if tr.Edges[e].Edit.Text == "set 0" && !c.ReviseFailed {
				t.Errorf("%s: failed revision not recorded", name)
			}
		}
		if res.Solved && !tr.Node(res.Fix).Solved() {
			t.Errorf("%s: fix %d not solved", name, res.Fix)
		}
	}
}
