package live

import (
	"context"
	"slices"
	"time"

	"triage/corpus"
	"triage/corpus/limits"
	"triage/search/eval"
	"triage/search/eval/report"
	"triage/search/proposer/setup"
	"triage/search/sandbox"
	"triage/search/tsapr"
)

// Config is one live search over a task set (`triage search`): the tasks,
// the methods and their settings.
type Config struct {
	Tasks       []corpus.Task
	TasksSource string
	// Methods are MethodPolicy and/or MethodTSAPR, each once, in the
	// table's order.
	Methods []string
	// Policies are the policies of MethodPolicy, built
	// (eval.BuildPolicies).
	Policies []eval.Policy
	// Proposer is the built proposer, ProposerName its name (mutate or
	// openai).
	Proposer     setup.Proposer
	ProposerName string
	// K, D, Budget and Seed are the policy search's; TSAPR takes Budget
	// and Seed from here too.
	K, D, Budget int
	Seed         uint64
	// TSAPR holds TSAPR's own options (Budget, Seed and Diff are set from
	// the rest of Config).
	TSAPR tsapr.Options
	// Roots per task, Workers (tasks searched at once and sandbox
	// workers: 0, one per CPU), Limits (a fixed limit, or adaptive ones
	// from each task's reference) and SandboxLimits (whether the sandbox
	// may run without its cgroup limits).
	Roots, Workers int
	Limits         limits.TimeLimits
	SandboxLimits  sandbox.LimitsPolicy
	// Resamples of the bootstrap; Out, when set, receives the trees.
	Resamples int
	Out       string
	// Progress shows a progress bar; OnRoot (tests) is called after each
	// finished search with the number finished so far.
	Progress bool
	OnRoot   func(done int)
}

// The methods of a live search.
const (
	MethodPolicy = "policy" // best-first search over the frontier with a policy
	MethodTSAPR  = "tsapr"  // TSAPR's own search over LLM patches
)

// Validate checks c before the tasks are read: the counts, the budget,
// Workers, Out, the methods, and TSAPR's constants. A bad value is bad
// input naming its field (corpus.Invalid).
func (c *Config) Validate() error {
	if c.Budget < 1 || c.Roots < 1 || c.K < 1 || c.D < 1 || c.Resamples < 1 {
		return corpus.Invalid("{Budget}, {Roots}, {K}, {D} and {Resamples} must be ≥ 1")
	}
	if c.Budget > eval.MaxBudget {
		return corpus.Invalid("{Budget} %d is above the largest budget, %d", c.Budget, eval.MaxBudget)
	}
	if _, err := corpus.Workers(c.Workers); err != nil {
		return err
	}
	if c.Out != "" {
		if err := CheckOut(c.Out); err != nil {
			return err
		}
	}
	if len(c.Methods) == 0 {
		return corpus.Invalid("{Methods} is empty")
	}
	for i, m := range c.Methods {
		if m != MethodPolicy && m != MethodTSAPR {
			return corpus.Invalid("{Methods} %q: want %s or %s", m, MethodPolicy, MethodTSAPR)
		}
		if slices.Contains(c.Methods[:i], m) {
			return corpus.Invalid("{Methods}: %s given twice", m)
		}
	}
	if t := c.TSAPR; t.C < 0 || !(t.Beta >= 0 && t.Beta <= 1) || t.MaxExpansion < 1 || t.Samples < 1 {
		return corpus.Invalid("{TSAPR.C} must be ≥ 0, {TSAPR.Beta} in [0, 1], {TSAPR.MaxExpansion} and {TSAPR.Samples} ≥ 1")
	}
	return nil
}

// Search checks c, starts the sandbox, sets each task's time limit
// (adaptive limits unless c.Limits fixes one), searches every root with
// every method, summarizes, and writes the trees to c.Out. A search cut
// short (Ctrl-C) still returns its report; Report.Err says so.
func Search(ctx context.Context, c Config) (*Report, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.Workers, _ = corpus.Workers(c.Workers)
	limits := map[string]corpus.RunOptions{}
	var runs []Method
	for _, m := range c.Methods {
		if m == MethodTSAPR {
			if c.Proposer.Client == nil {
				return nil, corpus.Invalid("{Methods} %s needs an LLM: an openai proposer", m)
			}
			o := c.TSAPR
			o.Budget, o.Seed = c.Budget, c.Seed
			o.Diff = func(a, b string) string { return report.UnifiedDiff("a/solution.py", "b/solution.py", a, b) }
			runs = append(runs, &TSAPRMethod{Client: c.Proposer.Client, Opts: o})
			continue
		}
		if len(c.Policies) == 0 {
			return nil, corpus.Invalid("{Policies} is empty")
		}
		for _, p := range c.Policies {
			runs = append(runs, &PolicyMethod{Policy: p.Policy, Proposer: c.Proposer.Proposer, ProposerName: c.ProposerName,
				Model: c.Proposer.Model, K: c.K, D: c.D, Budget: c.Budget, Seed: c.Seed, Limits: limits})
		}
	}

	// The mutate proposer localizes faults from per-test line coverage.
	coverage := c.ProposerName == "mutate"
	pool, err := sandbox.Start(c.Workers, c.SandboxLimits, &c.Limits, coverage)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	tasks := c.Tasks
	if c.Limits.Fixed == 0 {
		if tasks, err = AdaptiveLimits(ctx, pool, tasks, c.Limits, c.Workers, coverage, limits); err != nil {
			return nil, err
		}
	}

	start := time.Now()
	prog := NewProgress(c.Progress, len(tasks)*c.Roots*len(runs))
	rep := Run(ctx, tasks, runs, pool, Options{Roots: c.Roots, Seed: c.Seed, Workers: c.Workers,
		OnRoot: func(done int, r RootResult) {
			prog.RootDone(r)
			if c.OnRoot != nil {
				c.OnRoot(done)
			}
		}})
	prog.Finish()
	rep.WallSeconds = time.Since(start).Seconds()
	rep.TasksSource, rep.Budget, rep.Seed, rep.Proposer, rep.Model = c.TasksSource, c.Budget, c.Seed, c.ProposerName, c.Proposer.Model
	var names []string
	for _, r := range runs {
		names = append(names, r.Name())
	}
	if err := Summarize(rep, names, c.Resamples, c.Seed); err != nil {
		return nil, err
	}
	if c.Out != "" {
		if err := WriteTrees(c.Out, runs, rep, len(tasks), c.Roots); err != nil {
			return nil, err
		}
	}
	return rep, nil
}
