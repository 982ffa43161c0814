package live

import (
	"errors"
	"testing"

	"triage/corpus"
	"triage/search/tsapr"
)

// TestValidate: search's option checks return bad input naming the field.
func TestValidate(t *testing.T) {
	check := func(edit func(*Config)) error {
		c := Config{Budget: 16, Roots: 1, K: 3, D: 4, Resamples: 1, Methods: []string{MethodPolicy}, TSAPR: tsapr.DefaultOptions()}
		edit(&c)
		return c.Validate()
	}
	if err := check(func(*Config) {}); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{check(func(c *Config) { c.K = 0 }), "Budget, Roots, K, D and Resamples must be ≥ 1"},
		{check(func(c *Config) { c.Budget = 10_001 }), "Budget 10001 is above the largest budget, 10000"},
		{check(func(c *Config) { c.Workers = -1 }), "Workers -1: want ≥ 1, or 0 for one per CPU"},
		{check(func(c *Config) { c.Methods = nil }), "Methods is empty"},
		{check(func(c *Config) { c.Methods = []string{"mcts"} }), `Methods "mcts": want policy or tsapr`},
		{check(func(c *Config) { c.Methods = []string{MethodPolicy, MethodPolicy} }), "Methods: policy given twice"},
		{check(func(c *Config) { c.TSAPR.Beta = 2 }), "TSAPR.C must be ≥ 0, TSAPR.Beta in [0, 1], TSAPR.MaxExpansion and TSAPR.Samples ≥ 1"},
	} {
		var ie *corpus.InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || tc.err.Error() != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}
