package main

import (
	"errors"
	"slices"
	"testing"

	"triage/corpus"
	"triage/search/tsapr"
)

// TestSearchFlagChecks: search's flag checks (live.Config's own, read
// with the flags, and those of flags that apply to one method) return bad
// input naming the flag.
func TestSearchFlagChecks(t *testing.T) {
	check := func(methods string, given []string, edit func(*searchFlags)) error {
		f := &searchFlags{split: "all", judge: "auto"}
		f.Budget, f.Roots, f.K, f.D, f.Resamples, f.TSAPR = 16, 1, 3, 4, 1, tsapr.DefaultOptions()
		f.proposer = "mutate"
		edit(f)
		var err error
		if f.Methods, err = parseMethods(methods); err != nil {
			return err
		}
		return searchFlagNames.flagged(checkSearchFlags(f, func(n string) bool { return slices.Contains(given, n) }))
	}
	none := func(*searchFlags) {}
	if err := check("policy", nil, none); err != nil {
		t.Fatalf("valid flags: %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{check("policy", nil, func(f *searchFlags) { f.K = 0 }), "--budget, --roots, --k, --depth and --bootstrap must be ≥ 1"},
		{check("policy", nil, func(f *searchFlags) { f.Budget = 10_001 }), "--budget 10001 is above the largest budget, 10000"},
		{check("policy", nil, func(f *searchFlags) { f.split = "dev" }), `--split "dev": want train, val, test, all`},
		{check("policy,policy", nil, none), "--method: policy given twice"},
		{check("mcts", nil, none), `--method "mcts": want policy, tsapr, or a comma list of them`},
		{check(" , ", nil, none), "--method is empty"},
		{check("policy", []string{"samples"}, none), "--samples applies to --method tsapr"},
		{check("tsapr", []string{"policy"}, none), "--policy applies to --method policy"},
		{check("tsapr", nil, none), "--method tsapr needs an LLM: --proposer openai --base-url URL --model NAME"},
		{check("policy", nil, func(f *searchFlags) { f.judge = "human" }), `--judge: judge "human": want llm, tests or auto`},
		{check("policy", nil, func(f *searchFlags) { f.TSAPR.Beta = 2 }), "--c must be ≥ 0, --beta in [0, 1], --max-expansion and --samples ≥ 1"},
	} {
		var ie *corpus.InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || tc.err.Error() != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}
