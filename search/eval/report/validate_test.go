package report

import (
	"errors"
	"testing"

	"triage/corpus"
	"triage/search/eval"
)

// TestValidate: eval's and tune's option checks return bad input naming
// the flag, before any corpus is read.
func TestValidate(t *testing.T) {
	run := func(edit func(*RunOptions)) error {
		o := RunOptions{Corpus: "no-such-corpus", Split: "test", Names: []string{"bfs"}, ScoreBy: "s",
			Eval: eval.Options{Seeds: 1, Resamples: 1}}
		edit(&o)
		return o.Validate()
	}
	tune := func(edit func(*TuneOptions)) error {
		o := TuneOptions{Corpus: "no-such-corpus", Split: "val", Policy: "rex", Grid: "C=1", Out: "t.json", Metric: eval.MetricET, Seeds: 1}
		edit(&o)
		return o.Validate()
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{run(func(o *RunOptions) { o.Eval.Seeds = 0 }), "--seeds and --bootstrap must be >= 1"},
		{run(func(o *RunOptions) { o.Eval.MaxExpansions = -1 }), "--budget -1: want 0 (no cap) up to 10000"},
		{run(func(o *RunOptions) { o.Eval.Workers = -2 }), "--workers -2: want ≥ 1, or 0 for one per CPU"},
		{run(func(o *RunOptions) { o.Names = nil }), "--policies is empty"},
		{run(func(o *RunOptions) { o.Corpus = "" }), "--corpus is required"},
		{run(func(o *RunOptions) { o.Split = "all" }), `--split "all": want train, val, test`},
		{tune(func(o *TuneOptions) { o.Split = "test" }), "--split test: hyperparameters are tuned on val (or train), never on test"},
		{tune(func(o *TuneOptions) { o.Grid = "" }), "--policy, --grid and --out are required"},
		{tune(func(o *TuneOptions) { o.Metric = "F1" }), `--metric "F1": want ET or AUSC`},
		{tune(func(o *TuneOptions) { o.Seeds = 0 }), "--seeds must be >= 1"},
		{tune(func(o *TuneOptions) { o.Grid = "C" }), "--grid: "},
	} {
		var ie *corpus.InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || len(tc.err.Error()) < len(tc.want) || tc.err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}
