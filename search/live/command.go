package live

import (
	"context"
	"slices"
	"time"

	"triage/corpus"
	"triage/search/eval"
	"triage/search/eval/report"
	"triage/search/proposer/setup"
	"triage/search/sandbox"
	"triage/search/tsapr"
)

// Config is one `triage search` run as its flags give it, checked by the
// command: the tasks, the methods and their settings.
type Config struct {
	Tasks       []corpus.Task
	TasksSource string
	// Methods are policy and/or tsapr, each once, in the table's order.
	Methods []string
	// Policies, Params and Checkpoint choose the policies of Methods'
	// policy (eval.BuildPolicies under the flag --policy).
	Policies   []string
	ParamsFile string
	Checkpoint string
	LoadScorer eval.ScorerLoader
	// Proposer is the built proposer, ProposerName its name (mutate or
	// openai).
	Proposer     setup.Proposer
	ProposerName string
	// K, D, Budget and Seed are the policy search's; TSAPR takes Budget
	// and Seed from here too.
	K, D, Budget int
	Seed         uint64
	// TSAPR holds TSAPR's own options (Budget, Seed, Model and Diff are
	// set from the rest of Config).
	TSAPR tsapr.Options
	// Prompts, when set, is a folder of prompt files replacing TSAPR's
	// defaults (--prompts).
	Prompts string
	// Roots per task, Workers (tasks searched at once and sandbox
	// workers), Limits (a fixed limit, or adaptive ones from each task's
	// reference) and SandboxLimits (the --sandbox-limits policy).
	Roots, Workers int
	Limits         corpus.TimeLimits
	SandboxLimits  sandbox.LimitsPolicy
	// Resamples of the bootstrap; Out, when set, receives the trees.
	Resamples int
	Out       string
	// Progress shows a progress bar; OnRoot (tests) is called after each
	// finished search with the number finished so far.
	Progress bool
	OnRoot   func(done int)
	// Split (train, val, test or all), Judge (--judge: llm, tests or auto)
	// and Given (whether the user gave the flag of that name) are what
	// Validate checks besides the fields above; it sets TSAPR.Judge.
	Split, Judge string
	Given        func(flag string) bool
}

// tsaprFlags are the flags that apply to --method tsapr alone.
var tsaprFlags = []string{"judge", "judge-model", "samples", "c", "beta", "max-expansion", "prompts", "until-budget"}

// Validate checks c as the flags of `triage search` filled it (before the
// tasks are read): counts, the budget, --workers (resolved), --out,
// --split, the methods and the flags that apply to only one of them. A bad
// value is bad input (corpus.InputError) naming its flag.
func (c *Config) Validate() error {
	if c.Budget < 1 || c.Roots < 1 || c.K < 1 || c.D < 1 || c.Resamples < 1 {
		return corpus.BadInput("--budget, --roots, --k, --depth and --bootstrap must be ≥ 1")
	}
	if c.Budget > eval.MaxBudget {
		return corpus.BadInput("--budget %d is above the largest budget, %d", c.Budget, eval.MaxBudget)
	}
	var err error
	if c.Workers, err = corpus.Workers(c.Workers); err != nil {
		return err
	}
	if c.Out != "" {
		if err := CheckOut(c.Out); err != nil {
			return err
		}
	}
	if err := corpus.CheckSplit("--split", c.Split, "all"); err != nil {
		return err
	}
	if c.Methods, err = ParseMethods(c.Methods); err != nil {
		return err
	}
	given := c.Given
	if given == nil {
		given = func(string) bool { return false }
	}
	if !slices.Contains(c.Methods, "policy") && given("policy") {
		return corpus.BadInput("--policy applies to --method policy")
	}
	usesTSAPR := slices.Contains(c.Methods, "tsapr")
	for _, name := range tsaprFlags {
		if !usesTSAPR && given(name) {
			return corpus.BadInput("--%s applies to --method tsapr", name)
		}
	}
	if usesTSAPR && c.ProposerName != "openai" {
		return corpus.BadInput("--method tsapr needs an LLM: --proposer openai --base-url URL --model NAME")
	}
	if c.TSAPR.Judge, err = tsapr.ParseJudgeMode(c.Judge); err != nil {
		return corpus.BadInput("--judge: %v", err)
	}
	if t := c.TSAPR; t.C < 0 || !(t.Beta >= 0 && t.Beta <= 1) || t.MaxExpansion < 1 || t.Samples < 1 {
		return corpus.BadInput("--c must be ≥ 0, --beta in [0, 1], --max-expansion and --samples ≥ 1")
	}
	return nil
}

// Search builds the policies and TSAPR of c, starts the sandbox, sets each
// task's time limit (adaptive limits unless c.Limits fixes one), searches
// every root with every method, summarizes, and writes the trees to c.Out.
// A search cut short (Ctrl-C) still returns its report; Report.Err says so.
func Search(ctx context.Context, c Config) (*Report, error) {
	limits := map[string]corpus.RunOptions{}
	var runs []Method
	for _, m := range c.Methods {
		if m == "tsapr" {
			o := c.TSAPR
			o.Budget, o.Seed = c.Budget, c.Seed
			o.Diff = func(a, b string) string { return report.UnifiedDiff("a/solution.py", "b/solution.py", a, b) }
			if c.Prompts != "" {
				p, err := tsapr.LoadPrompts(c.Prompts)
				if err != nil {
					return nil, corpus.BadInput("--prompts: %v", err)
				}
				o.Prompts = p
			}
			runs = append(runs, &TSAPRMethod{Client: c.Proposer.Client, Opts: o})
			continue
		}
		if len(c.Policies) == 0 {
			return nil, corpus.BadInput("--policy is empty")
		}
		ps, err := eval.LoadParams("--params", c.ParamsFile)
		if err != nil {
			return nil, err
		}
		pols, release, err := eval.BuildPolicies(ctx, "--policy", c.Policies, ps, c.Checkpoint, c.LoadScorer)
		defer release()
		if err != nil {
			return nil, err
		}
		for _, p := range pols {
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

// ParseMethods reads --method: a comma list of policy and tsapr.
func ParseMethods(list []string) ([]string, error) {
	var methods []string
	for _, m := range list {
		if m == "" {
			continue
		}
		if m != "policy" && m != "tsapr" {
			return nil, corpus.BadInput("--method %q: want policy, tsapr, or a comma list of them", m)
		}
		if slices.Contains(methods, m) {
			return nil, corpus.BadInput("--method: %s given twice", m)
		}
		methods = append(methods, m)
	}
	if len(methods) == 0 {
		return nil, corpus.BadInput("--method is empty")
	}
	return methods, nil
}
