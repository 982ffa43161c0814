package live

import (
	"errors"
	"slices"
	"testing"

	"triage/corpus"
	"triage/search/tsapr"
)

// TestValidate: search's option checks return bad input naming the flag.
func TestValidate(t *testing.T) {
	check := func(edit func(*Config)) error {
		c := Config{Budget: 16, Roots: 1, K: 3, D: 4, Resamples: 1, Split: "all", Judge: "auto",
			Methods: []string{"policy"}, ProposerName: "mutate", TSAPR: tsapr.DefaultOptions()}
		edit(&c)
		return c.Validate()
	}
	given := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	if err := check(func(*Config) {}); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{check(func(c *Config) { c.K = 0 }), "--budget, --roots, --k, --depth and --bootstrap must be ≥ 1"},
		{check(func(c *Config) { c.Budget = 10_001 }), "--budget 10001 is above the largest budget, 10000"},
		{check(func(c *Config) { c.Split = "dev" }), `--split "dev": want train, val, test, all`},
		{check(func(c *Config) { c.Methods = []string{"policy", "policy"} }), "--method: policy given twice"},
		{check(func(c *Config) { c.Given = given("samples") }), "--samples applies to --method tsapr"},
		{check(func(c *Config) { c.Methods, c.Given = []string{"tsapr"}, given("policy") }), "--policy applies to --method policy"},
		{check(func(c *Config) { c.Methods = []string{"tsapr"} }), "--method tsapr needs an LLM: --proposer openai --base-url URL --model NAME"},
		{check(func(c *Config) { c.Judge = "human" }), `--judge: judge "human": want llm, tests or auto`},
		{check(func(c *Config) { c.TSAPR.Beta = 2 }), "--c must be ≥ 0, --beta in [0, 1], --max-expansion and --samples ≥ 1"},
	} {
		var ie *corpus.InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || tc.err.Error() != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}
