// Package live runs live repair searches over a task set: every root of
// every task, searched by each method (a policy over the frontier, grown
// live with a proposer and the sandbox, or TSAPR), tasks in parallel, with
// one record per search (solved, expansions, tokens, the fix as a diff)
// and a summary per method (S(B), C(B) and E[T] with task-clustered
// bootstrap errors). `triage search` parses flags and calls Search.
//
// Imports: the engine (search), corpus, policy, the proposers
// (search/proposer/...), search/tsapr, search/sandbox (the programs run
// there), search/eval (its policy construction) and search/eval/report
// (diffs).
package live

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"triage/corpus"
	"triage/corpus/build"
	"triage/policy"
	"triage/search"
	"triage/search/eval/report"
	"triage/search/proposer/mutate"
	"triage/search/proposer/openai"
	"triage/search/tsapr"
)

// Method is one way of searching a root: a policy over the frontier, or
// TSAPR. Runs share the sandbox, the token accounting (an openai.Meter per
// search) and the result record, so their rows sit in one table.
type Method interface {
	// Name is the row's name: the policy's ("learned", "uct") or "tsapr".
	Name() string
	// Search repairs root number i of task. The tree is nil only when no
	// search started; on error it holds what was searched.
	Search(ctx context.Context, task *corpus.Task, i int, root string, exec corpus.Executor) (RootResult, *corpus.Tree, error)
}

// Fix is one fix of a root as a diff against it.
type Fix struct {
	Node int `json:"node"`
	// Expansion is the number of expansions (patches) through this fix.
	Expansion    int    `json:"expansion"`
	OutputTokens int    `json:"output_tokens"`
	Diff         string `json:"diff"`
}

// RootResult is the record of one search of one root.
type RootResult struct {
	Method string `json:"method"`
	TaskID string `json:"task_id"`
	Split  string `json:"split"`
	Root   int    `json:"root"`
	TreeID string `json:"tree_id"`
	Solved bool   `json:"solved"`
	// Expansions are the expansions (TSAPR: patches) through the first
	// fix, or all of them when unsolved; TotalExpansions all of them.
	Expansions      int `json:"expansions"`
	TotalExpansions int `json:"total_expansions"`
	// OutputTokens are the output tokens through the first fix (all when
	// unsolved); the *Total fields count every call of the search.
	OutputTokens      int     `json:"output_tokens"`
	OutputTokensTotal int     `json:"output_tokens_total"`
	InputTokensTotal  int     `json:"input_tokens_total"`
	LLMCalls          int     `json:"llm_calls"`
	TokensEstimated   bool    `json:"tokens_estimated,omitempty"`
	WallSeconds       float64 `json:"wall_seconds"`
	// Fix is the first fix as a unified diff against the root; Fixes are
	// every fix found (TSAPR --until-budget may find several).
	Fix   string `json:"fix,omitempty"`
	Fixes []Fix  `json:"fixes,omitempty"`
	// TSAPR's own record: judge, dropped duplicates, failed judgements.
	Judge         string `json:"judge,omitempty"`
	Dropped       int    `json:"dropped_duplicates,omitempty"`
	JudgeFailures int    `json:"judge_failures,omitempty"`
	// Error is set when the search failed (not counted in the summary).
	Error string `json:"error,omitempty"`

	// RootIndex is the root's index among its task's roots; Tree the
	// searched tree (nil when no search started).
	RootIndex int          `json:"-"`
	Tree      *corpus.Tree `json:"-"`
}

// Outcome is the metric record of r.
func (r *RootResult) Outcome(seed uint64) policy.Outcome {
	return policy.Outcome{TaskID: r.TaskID, TreeID: r.TreeID, Seed: seed, Solved: r.Solved, T: r.Expansions, Tokens: r.OutputTokens}
}

// PolicyMethod searches the frontier of proposed edits with a policy, growing
// the tree live (search.Live) with the proposer.
type PolicyMethod struct {
	Policy   policy.Policy
	Proposer corpus.Proposer
	// ProposerName and Model name what proposed, for the record.
	ProposerName, Model string
	K, D                int
	Budget              int
	Seed                uint64
	// Limits are the tasks' adaptive time limits (zero for a task: the
	// executor's own).
	Limits map[string]corpus.RunOptions
}

func (r *PolicyMethod) Name() string { return r.Policy.Name() }

func (r *PolicyMethod) Search(ctx context.Context, task *corpus.Task, i int, root string, exec corpus.Executor) (RootResult, *corpus.Tree, error) {
	meter := &openai.Meter{}
	ctx = openai.WithMeter(ctx, meter)
	out := RootResult{TreeID: corpus.TreeID(task.ID, i, root)}
	live, err := search.NewLive(ctx, task, root, r.Proposer, exec, search.LiveOptions{TreeID: out.TreeID, K: r.K, D: r.D,
		Proposer: r.ProposerName, Model: r.Model, Timeout: r.Limits[task.ID].Timeout, CPULimit: r.Limits[task.ID].CPU,
		ProgramCPULimit: r.Limits[task.ID].ProgramCPU})
	if err != nil {
		return out, nil, err
	}
	res, err := search.Run(ctx, live, r.Policy, search.Config{Budget: r.Budget, Seed: r.Seed})
	t := live.Tree()
	corpus.ComputeLabels(t)
	if err != nil {
		return out, t, err
	}
	u := meter.Usage()
	out.Solved, out.Expansions, out.TotalExpansions = res.Solved, res.Expansions, res.Expansions
	out.OutputTokens, out.OutputTokensTotal = res.Tokens, res.Tokens
	out.InputTokensTotal, out.LLMCalls = u.InputTokens, u.Calls
	for k := range t.Nodes {
		out.TokensEstimated = out.TokensEstimated || t.Nodes[k].TokensEstimated
	}
	if res.Solved {
		fix := Fix{Node: int(res.Fix), Expansion: res.Expansions, OutputTokens: res.Tokens,
			Diff: report.UnifiedDiff("root/solution.py", "fix/solution.py", root, t.Node(res.Fix).Program)}
		out.Fix, out.Fixes = fix.Diff, []Fix{fix}
	}
	return out, t, nil
}

// TSAPRMethod searches with TSAPR.
type TSAPRMethod struct {
	Client *openai.Client
	Opts   tsapr.Options
}

func (r *TSAPRMethod) Name() string { return "tsapr" }

func (r *TSAPRMethod) Search(ctx context.Context, task *corpus.Task, i int, root string, exec corpus.Executor) (RootResult, *corpus.Tree, error) {
	meter := &openai.Meter{}
	ctx = openai.WithMeter(ctx, meter)
	opts := r.Opts
	opts.TreeID = corpus.TreeID(task.ID, i, root)
	out := RootResult{TreeID: opts.TreeID}
	res, err := tsapr.Search(ctx, r.Client, exec, task, root, opts)
	if res == nil {
		return out, nil, err
	}
	u := meter.Usage()
	o := res.Outcome(0)
	out.Solved, out.Expansions, out.TotalExpansions = res.Solved, o.T, res.Patches
	out.OutputTokens, out.OutputTokensTotal, out.InputTokensTotal, out.LLMCalls = o.Tokens, u.OutputTokens, u.InputTokens, u.Calls
	out.TokensEstimated = u.Estimated
	out.Judge, out.Dropped, out.JudgeFailures = string(res.Judge), res.Dropped, res.JudgeFailures
	for _, p := range res.Plausible {
		out.Fixes = append(out.Fixes, Fix{Node: int(p.Node), Expansion: p.Patch, OutputTokens: p.OutputTokens,
			Diff: report.UnifiedDiff("root/solution.py", "fix/solution.py", root, p.Program)})
	}
	if len(out.Fixes) > 0 {
		out.Fix = out.Fixes[0].Diff
	}
	return out, res.Tree, err
}

// Report is what `triage search` prints (--json) and writes (--json FILE).
type Report struct {
	TasksSource string `json:"tasks_source"`
	Proposer    string `json:"proposer"`
	Model       string `json:"model"`
	Budget      int    `json:"budget"`
	Seed        uint64 `json:"seed"`
	// Interrupted: the run was stopped (Ctrl-C); Results hold the searches
	// that finished, Unfinished counts the others.
	Interrupted bool         `json:"interrupted"`
	Unfinished  int          `json:"unfinished"`
	WallSeconds float64      `json:"wall_seconds"`
	Summary     []Summary    `json:"summary"`
	Results     []RootResult `json:"results"`

	cancelErr error
}

// Err is the run's error: an interruption, or searches that failed.
func (r *Report) Err() error {
	failed := 0
	for _, res := range r.Results {
		if res.Error != "" {
			failed++
		}
	}
	switch {
	case r.Interrupted:
		return fmt.Errorf("search interrupted: %d searches finished, %d did not: %w", len(r.Results)-failed, r.Unfinished, r.cancelErr)
	case failed > 0:
		return fmt.Errorf("%d of %d searches failed (see their error fields)", failed, len(r.Results))
	}
	return nil
}

// job is one task to search with every run.
type job struct {
	index int
	task  *corpus.Task
}

// Options configure Run.
type Options struct {
	// Roots per task: the first Roots of a task's own, or injected with
	// mutate.Inject and Seed as corpus build injects them.
	Roots int
	Seed  uint64
	// Workers are the tasks searched concurrently.
	Workers int
	// OnRoot, when set, is called after each finished search with the
	// number finished so far (under a lock: calls do not overlap).
	OnRoot func(done int, r RootResult)
}

// Run searches every root of every task with every method, tasks in
// parallel (Options.Workers), and returns the finished searches in task,
// method and root order. Roots are made per task as corpus build makes
// them.
func Run(ctx context.Context, tasks []corpus.Task, methods []Method, exec corpus.Executor, o Options) *Report {
	jobs := make(chan job)
	var mu sync.Mutex
	byTask := make([][]RootResult, len(tasks))
	done, unfinished := 0, 0
	record := func(ti int, r RootResult) {
		mu.Lock()
		defer mu.Unlock()
		byTask[ti] = append(byTask[ti], r)
		done++
		if o.OnRoot != nil {
			o.OnRoot(done, r)
		}
	}
	// A hand-written pool rather than an errgroup: a cancellation must
	// still count the searches of the tasks never handed out (the feed
	// loop), and searches fail one by one into the report, not the pool.
	var wg sync.WaitGroup
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				n := searchTask(ctx, methods, exec, o, j, record)
				mu.Lock()
				unfinished += n
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range tasks {
		select {
		case jobs <- job{index: i, task: &tasks[i]}:
		case <-ctx.Done():
			mu.Lock()
			unfinished += (len(tasks) - i) * o.Roots * len(methods)
			mu.Unlock()
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	rep := &Report{Unfinished: unfinished}
	if err := ctx.Err(); err != nil {
		rep.Interrupted, rep.cancelErr = true, err
	}
	for _, rs := range byTask {
		// Within a task, results come in run then root order already.
		rep.Results = append(rep.Results, rs...)
	}
	return rep
}

// searchTask makes the roots of one task and searches them with every run,
// reporting each finished search; it returns the number of searches left
// unfinished by a cancellation.
func searchTask(ctx context.Context, methods []Method, exec corpus.Executor, o Options, j job,
	record func(int, RootResult)) int {
	task := j.task
	roots := task.Roots
	if len(roots) == 0 {
		// The same call as corpus build's, so root i is the corpus's root i.
		var err error
		roots, err = mutate.Inject(ctx, task, build.NewCachedExecutor(exec), o.Roots, build.TaskSeed(o.Seed, task.ID))
		if err != nil {
			if ctx.Err() != nil {
				return o.Roots * len(methods)
			}
			for _, r := range methods {
				record(j.index, RootResult{Method: r.Name(), TaskID: task.ID, Split: task.Split, Root: -1,
					Error: fmt.Sprintf("make roots: %v", err)})
			}
			return 0
		}
	}
	if len(roots) > o.Roots {
		roots = roots[:o.Roots]
	}
	for ri, r := range methods {
		// One execution cache per task and run: a run's wall time does not
		// profit from another's test runs.
		cache := build.NewCachedExecutor(exec)
		for i, root := range roots {
			if ctx.Err() != nil {
				return (len(methods)-ri)*len(roots) - i
			}
			start := time.Now()
			res, tree, err := r.Search(ctx, task, i, root, cache)
			if err != nil && ctx.Err() != nil {
				return (len(methods)-ri)*len(roots) - i
			}
			res.Method, res.TaskID, res.Split, res.Root, res.RootIndex = r.Name(), task.ID, task.Split, i, i
			res.WallSeconds = time.Since(start).Seconds()
			if err != nil {
				res.Error = err.Error()
				slog.Warn("search failed", "method", r.Name(), "task", task.ID, "root", i, "err", err)
			}
			res.Tree = tree
			record(j.index, res)
		}
	}
	return 0
}

// Summary is one method's row of the summary table.
type Summary struct {
	Method string `json:"method"`
	// Roots are the finished searches summarized (Failed ones are not).
	Roots  int `json:"roots"`
	Tasks  int `json:"tasks"`
	Solved int `json:"solved"`
	Failed int `json:"failed"`
	// S and C are S(B) and C(B) at B = the budget, with bootstrap standard
	// errors clustered by task.
	S   float64 `json:"S"`
	SSE float64 `json:"S_se"`
	C   float64 `json:"C"`
	CSE float64 `json:"C_se"`
	// ET is the mean expansions to the first fix over solved roots.
	ET   float64 `json:"ET_solved"`
	ETSE float64 `json:"ET_solved_se"`
	// Mean per root: output tokens through the first fix (all when
	// unsolved), every output token, every input token.
	OutputTokens      float64 `json:"output_tokens_per_root"`
	OutputTokensTotal float64 `json:"output_tokens_total_per_root"`
	InputTokensTotal  float64 `json:"input_tokens_total_per_root"`
	TokensEstimated   bool    `json:"tokens_estimated,omitempty"`
	WallSeconds       float64 `json:"wall_seconds_per_root"`
}

// Summarize orders the results by method (in the order the runs were
// given), then task, then root, and fills one summary row per method.
func Summarize(rep *Report, methods []string, resamples int, seed uint64) error {
	order := map[string]int{}
	for i, m := range methods {
		order[m] = i
	}
	sort.SliceStable(rep.Results, func(i, j int) bool { return order[rep.Results[i].Method] < order[rep.Results[j].Method] })
	for _, m := range methods {
		sum := Summary{Method: m}
		var outs []policy.Outcome
		tasks := map[string]bool{}
		for i := range rep.Results {
			r := &rep.Results[i]
			if r.Method != m {
				continue
			}
			if r.Error != "" {
				sum.Failed++
				continue
			}
			outs = append(outs, r.Outcome(seed))
			tasks[r.TaskID] = true
			sum.Roots++
			if r.Solved {
				sum.Solved++
			}
			sum.OutputTokens += float64(r.OutputTokens)
			sum.OutputTokensTotal += float64(r.OutputTokensTotal)
			sum.InputTokensTotal += float64(r.InputTokensTotal)
			sum.WallSeconds += r.WallSeconds
			sum.TokensEstimated = sum.TokensEstimated || r.TokensEstimated
		}
		sum.Tasks = len(tasks)
		if sum.Roots > 0 {
			n := float64(sum.Roots)
			sum.OutputTokens /= n
			sum.OutputTokensTotal /= n
			sum.InputTokensTotal /= n
			sum.WallSeconds /= n
			ps, err := policy.Summarize(outs, []int{rep.Budget}, resamples, seed)
			if err != nil {
				return fmt.Errorf("summarize %s: %w", m, err)
			}
			k := fmt.Sprint(rep.Budget)
			sum.S, sum.SSE, sum.C, sum.CSE = ps.S[k], ps.SSE[k], ps.C[k], ps.CSE[k]
			sum.ET, sum.ETSE = ps.ET, ps.ETSE
		}
		rep.Summary = append(rep.Summary, sum)
	}
	return nil
}

// WriteMarkdown prints the per-root table, the summary table and the
// fixes as diffs (what `triage search` prints without --json).
func (rep *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## triage search: %s, proposer %s (%s), budget %d\n\n", rep.TasksSource, rep.Proposer, rep.Model, rep.Budget)
	b.WriteString("| method | task | root | solved | expansions | output tokens | output tokens (all) | input tokens (all) | LLM calls | wall s |\n")
	b.WriteString("|---|---|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Results {
		solved := "no"
		switch {
		case r.Error != "":
			solved = "error"
		case r.Solved:
			solved = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %d | %d | %d | %d | %d | %.1f |\n", r.Method, r.TaskID, r.Root, solved,
			r.Expansions, r.OutputTokens, r.OutputTokensTotal, r.InputTokensTotal, r.LLMCalls, r.WallSeconds)
	}
	bud := rep.Budget
	fmt.Fprintf(&b, "\n| method | roots | tasks | solved | S(%d) | C(%d) | E[T] solved | output tokens / root | input tokens / root | wall s / root |\n", bud, bud)
	b.WriteString("|---|---:|---:|---:|---|---|---|---:|---:|---:|\n")
	for _, s := range rep.Summary {
		est := ""
		if s.TokensEstimated {
			est = " (est.)"
		}
		et := "–"
		if s.Solved > 0 {
			et = fmt.Sprintf("%.2f ± %.2f", s.ET, s.ETSE)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.3f ± %.3f | %.2f ± %.2f | %s | %.0f%s | %.0f%s | %.1f |\n", s.Method, s.Roots, s.Tasks, s.Solved,
			s.S, s.SSE, s.C, s.CSE, et, s.OutputTokens, est, s.InputTokensTotal, est, s.WallSeconds)
		if s.Failed > 0 {
			fmt.Fprintf(&b, "\n%s: %d searches failed and are not counted.\n", s.Method, s.Failed)
		}
	}
	fmt.Fprintf(&b, "\nS(B): fraction of roots fixed within B expansions (TSAPR: patches); C(B): mean expansions spent, a failure costing B; ± one bootstrap standard error, resampling tasks. Output tokens run through the first fix; input tokens count every call. Wall time %.1f s.\n", rep.WallSeconds)
	if rep.Interrupted {
		fmt.Fprintf(&b, "\nInterrupted: %d searches finished and are shown; %d did not finish.\n", len(rep.Results), rep.Unfinished)
	}
	for _, r := range rep.Results {
		if r.Error != "" {
			fmt.Fprintf(&b, "\n%s %s root %d failed: %s\n", r.Method, r.TaskID, r.Root, r.Error)
		}
		for i, fx := range r.Fixes {
			fmt.Fprintf(&b, "\n### %s %s root %d: fix %d at expansion %d (%d output tokens)\n\n```diff\n%s```\n",
				r.Method, r.TaskID, r.Root, i+1, fx.Expansion, fx.OutputTokens, fx.Diff)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
