package eval

import (
	"fmt"

	"triage/corpus"
)

// MaxBudget bounds every budget flag (eval and cv --budgets, eval --budget,
// search --budget). The metrics hold S(b) for every b up to the largest
// budget, for every tree (8 bytes each): memory grows with the budget, and
// beyond the largest tree's edge count (120 for corpus build's defaults,
// k = 3, D = 4) a larger budget changes nothing.
const MaxBudget = 10_000

// BudgetsUsage is the help of the --budgets flags.
var BudgetsUsage = fmt.Sprintf("budgets B of S(B), C(B), AUSC(B), each 1..%d", MaxBudget)

// ParseBudgets parses a --budgets list (the value of --flag): positive ints
// up to MaxBudget; anything else is bad input.
func ParseBudgets(flag, s string) ([]int, error) {
	bs, err := corpus.ParseInts(flag, s)
	for _, b := range bs {
		if b > MaxBudget {
			return nil, corpus.BadInput("--%s: %d is above the largest budget, %d", flag, b, MaxBudget)
		}
	}
	return bs, err
}
