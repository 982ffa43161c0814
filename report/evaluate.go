package report

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"triage/corpus"
	"triage/policy"
	"triage/search"
)

// EvalOptions configure Evaluate.
type EvalOptions struct {
	// Budgets at which S, C and AUSC are reported (default 4, 8, 16, 36).
	Budgets []int
	// MaxExpansions caps each replay (0: until the first fix, as E[T]
	// needs).
	MaxExpansions int
	// Seeds is the number of seeds of a stochastic policy (default 10);
	// deterministic policies run once.
	Seeds int
	// Resamples of the task-clustered bootstrap (default 1000).
	Resamples int
	// Workers replaying in parallel (<= 0: one per CPU).
	Workers int
}

// EvalPolicy is one policy to evaluate, with the hyperparameters it was
// built with (for the record).
type EvalPolicy struct {
	Policy policy.Policy
	Params policy.Params
}

// DefaultBudgets are the budgets of the reports.
var DefaultBudgets = []int{4, 8, 16, 36}

// budgeted is implemented by policies that take the search budget into
// account (bgmcts).
type budgeted interface {
	WithBudget(b int) policy.Policy
}

// Evaluate replays every policy on every tree (all of one split, chosen by
// the caller) and summarizes them. A budget-aware policy whose params do not
// fix "budget" is given the largest reported budget.
func Evaluate(ctx context.Context, trees []*corpus.Tree, pols []EvalPolicy, opts EvalOptions) (*Report, error) {
	if len(trees) == 0 {
		return nil, fmt.Errorf("evaluate: no trees")
	}
	if len(opts.Budgets) == 0 {
		opts.Budgets = DefaultBudgets
	}
	if opts.Seeds <= 0 {
		opts.Seeds = 10
	}
	if opts.Resamples <= 0 {
		opts.Resamples = 1000
	}
	maxB := slices.Max(opts.Budgets)
	tasks := map[string]bool{}
	for _, t := range trees {
		tasks[t.TaskID] = true
	}
	r := &Report{Trees: len(trees), Tasks: len(tasks), Budgets: slices.Clone(opts.Budgets)}
	for _, ep := range pols {
		p := ep.Policy
		if b, ok := p.(budgeted); ok {
			if _, fixed := ep.Params["budget"]; !fixed {
				p = b.WithBudget(maxB)
			}
		}
		n := 1
		if policy.Stochastic(p.Name()) {
			n = opts.Seeds
		}
		seeds := make([]uint64, n)
		for i := range seeds {
			seeds[i] = uint64(i + 1)
		}
		res, err := search.ReplayAll(ctx, trees, p, seeds, opts.MaxExpansions, opts.Workers)
		if err != nil {
			return nil, fmt.Errorf("evaluate %s: %w", p.Name(), err)
		}
		sm, err := policy.Summarize(search.Outcomes(res), opts.Budgets, opts.Resamples, 7)
		if err != nil {
			return nil, fmt.Errorf("evaluate %s: %w", p.Name(), err)
		}
		slog.Info("evaluated", "policy", p.Name(), "trees", len(trees), "seeds", n, "ET", sm.ET, "solved", sm.Solved)
		r.Policies = append(r.Policies, PolicyResult{Name: p.Name(), Params: ep.Params, Seeds: n, Summary: sm})
	}
	return r, nil
}

// View replays p on t with seed 1, traced, and builds its viewer.
func View(ctx context.Context, t *corpus.Tree, p policy.Policy) (*Viewer, error) {
	env, err := search.NewReplay(t)
	if err != nil {
		return nil, err
	}
	res, err := search.Run(ctx, env, p, search.Config{Seed: 1, Trace: true})
	if err != nil && !isEnd(err) {
		return nil, fmt.Errorf("view %s with %s: %w", t.ID, p.Name(), err)
	}
	return NewViewer(t, res)
}

func isEnd(err error) bool {
	return errors.Is(err, search.ErrBudgetExhausted) || errors.Is(err, search.ErrFrontierEmpty)
}
