package proposer

import (
	"context"
	"testing"

	"triage/corpus"
)

func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abc", 1},
		{"abcd", 2}, // 4/3.6 rounds up
		{"0123456789012345678901234567890123456789", 12},
	} {
		if got := EstimateTokens(tc.in); got != tc.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

type fixedCounter int

func (f fixedCounter) CountTokens(string) int { return int(f) }

func TestCounter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       TokenCounter
		wantEst  bool
		wantNine bool
	}{
		{"nil", nil, true, false},
		{"estimator", Estimator{}, true, false},
		{"pointer estimator", &Estimator{}, true, false},
		{"real", fixedCounter(9), false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, est := Counter(tc.in)
			if est != tc.wantEst {
				t.Errorf("estimated = %v, want %v", est, tc.wantEst)
			}
			if got := c.CountTokens("abcdefgh"); (got == 9) != tc.wantNine {
				t.Errorf("CountTokens = %d", got)
			}
		})
	}
}

func TestFunc(t *testing.T) {
	f := Func{ProposeFunc: func(_ context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
		return corpus.Proposal{Diagnosis: req.Key}, nil
	}}
	p, err := f.Propose(context.Background(), corpus.ProposeRequest{Key: "k"})
	if err != nil || p.Diagnosis != "k" {
		t.Fatalf("Propose = %+v, %v", p, err)
	}
	if _, err := f.Revise(context.Background(), corpus.ReviseRequest{}); err == nil {
		t.Fatal("Revise with nil ReviseFunc: want error")
	}
}
