package policy_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"triage/model/priority"
	"triage/policy"
)

// constScorer gives every edge the distribution d.
func constScorer(d ...float64) policy.Scorer {
	return policy.ScoreFunc(func(_ context.Context, edges []priority.Edge) ([]priority.Dist, error) {
		out := make([]priority.Dist, len(edges))
		for i := range out {
			out[i] = append(priority.Dist(nil), d...)
		}
		return out, nil
	})
}

func TestEnsembleAveragesBinByBin(t *testing.T) {
	a := constScorer(0.8, 0.1, 0.1)
	b := constScorer(0.2, 0.3, 0.5)
	edges := []priority.Edge{{MaxDepth: 2}, {MaxDepth: 2}}
	got, err := policy.Ensemble{a, b}.Score(context.Background(), edges)
	if err != nil {
		t.Fatal(err)
	}
	want := priority.Dist{0.5, 0.2, 0.3}
	for i, d := range got {
		for k := range want {
			if math.Abs(d[k]-want[k]) > 1e-12 {
				t.Fatalf("edge %d: %v, want %v", i, d, want)
			}
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("edge %d: mean is not a distribution: %v", i, err)
		}
	}
	// The members' own distributions are not modified.
	again, _ := a.Score(context.Background(), edges[:1])
	if again[0][0] != 0.8 {
		t.Fatalf("member changed: %v", again[0])
	}
	// One member is that member.
	one, err := policy.Ensemble{b}.Score(context.Background(), edges)
	if err != nil || one[1][2] != 0.5 {
		t.Fatalf("ensemble of one: %v, %v", one, err)
	}
}

func TestEnsembleRejects(t *testing.T) {
	boom := errors.New("boom")
	failing := policy.ScoreFunc(func(context.Context, []priority.Edge) ([]priority.Dist, error) { return nil, boom })
	short := policy.ScoreFunc(func(context.Context, []priority.Edge) ([]priority.Dist, error) { return nil, nil })
	edges := []priority.Edge{{MaxDepth: 2}}
	for _, tc := range []struct {
		name string
		e    policy.Ensemble
		want string
	}{
		{"empty", policy.Ensemble{}, "no scorers"},
		{"member error", policy.Ensemble{constScorer(0.5, 0.5), failing}, "boom"},
		{"too few distributions", policy.Ensemble{short}, "0 distributions for 1 edges"},
		{"bins differ", policy.Ensemble{constScorer(0.5, 0.5), constScorer(0.2, 0.3, 0.5)}, "3 bins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.e.Score(context.Background(), edges)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one containing %q", err, tc.want)
			}
		})
	}
}
