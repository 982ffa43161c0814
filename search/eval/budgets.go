package eval

// MaxBudget bounds every budget (eval and cv's budgets, a replay's cap on
// expansions, a live search's budget). The metrics hold S(b) for every b
// up to the largest budget, for every tree (8 bytes each): memory grows
// with the budget, and beyond the largest tree's edge count (120 for corpus
// build's defaults, k = 3, D = 4) a larger budget changes nothing.
const MaxBudget = 10_000
