package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/spf13/cobra"

	"triage/model"
)

// splitList splits a comma-separated flag value into its trimmed,
// non-empty entries.
func splitList(value string) []string {
	var out []string
	for _, v := range strings.Split(value, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// parseList splits a comma-separated flag value into its trimmed, non-empty
// entries and returns bad input for an entry that is not one of allowed,
// for one given twice, or for an empty list.
func parseList(flag, value string, allowed ...string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, v := range splitList(value) {
		ok := false
		for _, a := range allowed {
			ok = ok || v == a
		}
		if !ok {
			return nil, badInput("%s: unknown value %q, want %s", flag, v, strings.Join(allowed, ", "))
		}
		if seen[v] {
			return nil, badInput("%s: %s given twice", flag, v)
		}
		seen[v] = true
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, badInput("%s is empty, want some of %s", flag, strings.Join(allowed, ", "))
	}
	return out, nil
}

// maxBudget bounds every budget flag (eval and cv --budgets, eval --budget,
// search --budget). The metrics hold S(b) for every b up to the largest
// budget, for every tree (8 bytes each): memory grows with the budget, and
// beyond the largest tree's edge count (120 for corpus build's defaults,
// k = 3, D = 4) a larger budget changes nothing.
const maxBudget = 10_000

// budgetsUsage is the help of the --budgets flags.
var budgetsUsage = fmt.Sprintf("budgets B of S(B), C(B), AUSC(B), each 1..%d", maxBudget)

// parseInts parses a comma list such as "4,8,16" into positive ints.
func parseInts(flag, s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return nil, badInput("--%s: %q is not a positive integer", flag, p)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseBudgets parses a --budgets list: positive ints up to maxBudget.
func parseBudgets(flag, s string) ([]int, error) {
	bs, err := parseInts(flag, s)
	for _, b := range bs {
		if b > maxBudget {
			return nil, badInput("--%s: %d is above the largest budget, %d", flag, b, maxBudget)
		}
	}
	return bs, err
}

// workersZero ends the help of every --workers flag: 0 is one per CPU in
// every command.
const workersZero = " (0: one per CPU)"

// resolveWorkers checks a --workers value: 0 means one per CPU; a negative
// one is bad input.
func resolveWorkers(n int) (int, error) {
	switch {
	case n < 0:
		return 0, badInput("--workers %d: want ≥ 1, or 0 for one per CPU", n)
	case n == 0:
		return runtime.NumCPU(), nil
	}
	return n, nil
}

// deprecatedAlias adds old as a hidden, deprecated name of c's flag name:
// renamed flags keep working, with a notice on stderr.
func deprecatedAlias(c *cobra.Command, old, name string) {
	f := c.Flags().Lookup(name)
	c.Flags().Var(f.Value, old, f.Usage)
	_ = c.Flags().MarkDeprecated(old, "use --"+name)
}

// benchModel parses the --arch and --dtype flags of the model benchmarks.
func benchModel(arch, dtype string) (model.Config, dtypes.DType, error) {
	var cfg model.Config
	switch arch {
	case "tiny", "small":
		cfg = model.SmallConfig()
	case "0.6b":
		cfg = model.Qwen3_0_6B()
	default:
		return cfg, dtypes.Float32, badInput("--arch %q: want tiny or 0.6b", arch)
	}
	switch dtype {
	case "f32", "float32":
		return cfg, dtypes.Float32, nil
	case "bf16", "bfloat16":
		return cfg, dtypes.BFloat16, nil
	}
	return cfg, dtypes.Float32, badInput("--dtype %q: want f32 or bf16", dtype)
}

// readTokenFile reads the bearer token in path (--token-file), trimmed; an
// unreadable file is bad input.
func readTokenFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", badInput("--token-file: %v", err)
	}
	return strings.TrimSpace(string(data)), nil
}
