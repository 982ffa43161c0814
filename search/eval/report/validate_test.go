package report

import (
	"errors"
	"testing"

	"triage/corpus"
	"triage/policy"
	"triage/search/eval"
)

// TestValidate: eval's and tune's option checks return bad input naming
// the field, before any corpus is read.
func TestValidate(t *testing.T) {
	run := func(edit func(*RunOptions)) error {
		bfs, err := policy.New("bfs", nil)
		if err != nil {
			t.Fatal(err)
		}
		o := RunOptions{Corpus: []string{"no-such-corpus"}, Split: "test", Policies: []eval.Policy{{Policy: bfs}},
			Eval: eval.Options{Seeds: 1, Resamples: 1}}
		edit(&o)
		return o.Validate()
	}
	tune := func(edit func(*TuneOptions)) error {
		o := TuneOptions{Corpus: []string{"no-such-corpus"}, Split: "val", Policy: "rex", Points: []policy.Params{{"C": 1}},
			Out: "t.json", Metric: eval.MetricET, Seeds: 1}
		edit(&o)
		return o.Validate()
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{run(func(o *RunOptions) { o.Eval.Seeds = 0 }), "Eval.Seeds and Eval.Resamples must be >= 1"},
		{run(func(o *RunOptions) { o.Eval.MaxExpansions = -1 }), "Eval.MaxExpansions -1: want 0 (no cap) up to 10000"},
		{run(func(o *RunOptions) { o.Eval.Workers = -2 }), "Workers -2: want ≥ 1, or 0 for one per CPU"},
		{run(func(o *RunOptions) { o.Corpus = nil }), "Corpus is required"},
		{run(func(o *RunOptions) { o.Split = "all" }), `Split "all": want train, val, test`},
		{run(func(o *RunOptions) { o.Eval.Paired = []string{"uct"} }), "Eval.Paired uct: not among Policies bfs"},
		{tune(func(o *TuneOptions) { o.Split = "test" }), "Split test: hyperparameters are tuned on val (or train), never on test"},
		{tune(func(o *TuneOptions) { o.Points = nil }), "Policy, Points and Out are required"},
		{tune(func(o *TuneOptions) { o.Metric = "F1" }), `Metric "F1": want ET or AUSC`},
		{tune(func(o *TuneOptions) { o.Seeds = 0 }), "Seeds must be >= 1"},
	} {
		var ie *corpus.InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || len(tc.err.Error()) < len(tc.want) || tc.err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}
