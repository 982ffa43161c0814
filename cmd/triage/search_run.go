package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"triage/corpus"
	"triage/policy"
	"triage/search"
	"triage/search/eval/report"
	"triage/search/proposer/mutate"
	"triage/search/proposer/openai"
	"triage/search/tsapr"
)

// searchRun is one way of searching a root: a policy over the frontier, or
// TSAPR. Runs share the sandbox, the token accounting (an openai.Meter per
// search) and the result record, so their rows sit in one table.
type searchRun interface {
	// name is the row's name: the policy's ("learned", "uct") or "tsapr".
	name() string
	// search repairs root number i of task. The tree is nil only when no
	// search started; on error it holds what was searched.
	search(ctx context.Context, task *corpus.Task, i int, root string, exec corpus.Executor) (searchRootResult, *corpus.Tree, error)
}

// searchFix is one fix of a root as a diff against it.
type searchFix struct {
	Node int `json:"node"`
	// Expansion is the number of expansions (patches) through this fix.
	Expansion    int    `json:"expansion"`
	OutputTokens int    `json:"output_tokens"`
	Diff         string `json:"diff"`
}

// searchRootResult is the record of one search of one root.
type searchRootResult struct {
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
	Fix   string      `json:"fix,omitempty"`
	Fixes []searchFix `json:"fixes,omitempty"`
	// TSAPR's own record: judge, dropped duplicates, failed judgements.
	Judge         string `json:"judge,omitempty"`
	Dropped       int    `json:"dropped_duplicates,omitempty"`
	JudgeFailures int    `json:"judge_failures,omitempty"`
	// Error is set when the search failed (not counted in the summary).
	Error string `json:"error,omitempty"`

	rootIndex int
	tree      *corpus.Tree
}

func (r *searchRootResult) outcome(seed uint64) policy.Outcome {
	return policy.Outcome{TaskID: r.TaskID, TreeID: r.TreeID, Seed: seed, Solved: r.Solved, T: r.Expansions, Tokens: r.OutputTokens}
}

// policyRun searches the frontier of proposed edits with a policy, growing
// the tree live (search.Live) with the proposer.
type policyRun struct {
	pol             policy.Policy
	prop            corpus.Proposer
	proposer, model string
	k, depth        int
	budget          int
	seed            uint64
	// limits are the tasks' adaptive time limits (zero for a task: the
	// executor's own).
	limits map[string]corpus.RunOptions
}

func (r *policyRun) name() string { return r.pol.Name() }

func (r *policyRun) search(ctx context.Context, task *corpus.Task, i int, root string, exec corpus.Executor) (searchRootResult, *corpus.Tree, error) {
	meter := &openai.Meter{}
	ctx = openai.WithMeter(ctx, meter)
	out := searchRootResult{TreeID: corpus.TreeID(task.ID, i, root)}
	live, err := search.NewLive(ctx, task, root, r.prop, exec, search.LiveOptions{TreeID: out.TreeID, K: r.k, D: r.depth,
		Proposer: r.proposer, Model: r.model, Timeout: r.limits[task.ID].Timeout, CPULimit: r.limits[task.ID].CPU})
	if err != nil {
		return out, nil, err
	}
	res, err := search.Run(ctx, live, r.pol, search.Config{Budget: r.budget, Seed: r.seed})
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
		fix := searchFix{Node: int(res.Fix), Expansion: res.Expansions, OutputTokens: res.Tokens,
			Diff: report.UnifiedDiff("root/solution.py", "fix/solution.py", root, t.Node(res.Fix).Program)}
		out.Fix, out.Fixes = fix.Diff, []searchFix{fix}
	}
	return out, t, nil
}

// tsaprRun searches with TSAPR.
type tsaprRun struct {
	client *openai.Client
	opts   tsapr.Options
}

func (r *tsaprRun) name() string { return "tsapr" }

func (r *tsaprRun) search(ctx context.Context, task *corpus.Task, i int, root string, exec corpus.Executor) (searchRootResult, *corpus.Tree, error) {
	meter := &openai.Meter{}
	ctx = openai.WithMeter(ctx, meter)
	opts := r.opts
	opts.TreeID = corpus.TreeID(task.ID, i, root)
	out := searchRootResult{TreeID: opts.TreeID}
	res, err := tsapr.Search(ctx, r.client, exec, task, root, opts)
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
		out.Fixes = append(out.Fixes, searchFix{Node: int(p.Node), Expansion: p.Patch, OutputTokens: p.OutputTokens,
			Diff: report.UnifiedDiff("root/solution.py", "fix/solution.py", root, p.Program)})
	}
	if len(out.Fixes) > 0 {
		out.Fix = out.Fixes[0].Diff
	}
	return out, res.Tree, err
}

// searchReport is what `triage search` prints (--json) and writes (--json FILE).
type searchReport struct {
	TasksSource string `json:"tasks_source"`
	Proposer    string `json:"proposer"`
	Model       string `json:"model"`
	Budget      int    `json:"budget"`
	Seed        uint64 `json:"seed"`
	// Interrupted: the run was stopped (Ctrl-C); Results hold the searches
	// that finished, Unfinished counts the others.
	Interrupted bool               `json:"interrupted"`
	Unfinished  int                `json:"unfinished"`
	WallSeconds float64            `json:"wall_seconds"`
	Summary     []searchSummary    `json:"summary"`
	Results     []searchRootResult `json:"results"`

	cancelErr error
}

// err is the run's error: an interruption, or searches that failed.
func (r *searchReport) err() error {
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

// searchJob is one task to search with every run.
type searchJob struct {
	index int
	task  *corpus.Task
}

// runSearches searches every root of every task with every run, tasks in
// parallel (--workers), and returns the finished searches in task, run and
// root order. Roots are made per task as corpus build makes them.
func runSearches(ctx context.Context, s *searchSetup, exec corpus.Executor, f *searchFlags, prog *searchProgress) *searchReport {
	jobs := make(chan searchJob)
	var mu sync.Mutex
	byTask := make([][]searchRootResult, len(s.tasks))
	done, unfinished := 0, 0
	record := func(ti int, r searchRootResult) {
		mu.Lock()
		defer mu.Unlock()
		byTask[ti] = append(byTask[ti], r)
		done++
		prog.rootDone(r)
		if searchAfterRoot != nil {
			searchAfterRoot(done)
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < f.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				n := searchTask(ctx, s, exec, f, j, record)
				mu.Lock()
				unfinished += n
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range s.tasks {
		select {
		case jobs <- searchJob{index: i, task: &s.tasks[i]}:
		case <-ctx.Done():
			mu.Lock()
			unfinished += (len(s.tasks) - i) * f.roots * len(s.runs)
			mu.Unlock()
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	rep := &searchReport{Unfinished: unfinished}
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
func searchTask(ctx context.Context, s *searchSetup, exec corpus.Executor, f *searchFlags, j searchJob,
	record func(int, searchRootResult)) int {
	task := j.task
	roots := task.Roots
	if len(roots) == 0 {
		// The same call as corpus build's, so root i is the corpus's root i.
		var err error
		roots, err = mutate.Inject(ctx, task, corpus.NewCachedExecutor(exec), f.roots, corpus.TaskSeed(f.seed, task.ID))
		if err != nil {
			if ctx.Err() != nil {
				return f.roots * len(s.runs)
			}
			for _, r := range s.runs {
				record(j.index, searchRootResult{Method: r.name(), TaskID: task.ID, Split: task.Split, Root: -1,
					Error: fmt.Sprintf("make roots: %v", err)})
			}
			return 0
		}
	}
	if len(roots) > f.roots {
		roots = roots[:f.roots]
	}
	for ri, r := range s.runs {
		// One execution cache per task and run: a run's wall time does not
		// profit from another's test runs.
		cache := corpus.NewCachedExecutor(exec)
		for i, root := range roots {
			if ctx.Err() != nil {
				return (len(s.runs)-ri)*len(roots) - i
			}
			start := time.Now()
			res, tree, err := r.search(ctx, task, i, root, cache)
			if err != nil && ctx.Err() != nil {
				return (len(s.runs)-ri)*len(roots) - i
			}
			res.Method, res.TaskID, res.Split, res.Root, res.rootIndex = r.name(), task.ID, task.Split, i, i
			res.WallSeconds = time.Since(start).Seconds()
			if err != nil {
				res.Error = err.Error()
				slog.Warn("search failed", "method", r.name(), "task", task.ID, "root", i, "err", err)
			}
			res.tree = tree
			record(j.index, res)
		}
	}
	return 0
}

// searchProgress shows a progress bar on a terminal, and one structured log
// line per finished search otherwise.
type searchProgress struct {
	bar   *progressbar.ProgressBar
	total int
	done  int
}

func newSearchProgress(tty bool, total int) *searchProgress {
	p := &searchProgress{total: total}
	if tty {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription("searches"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		_ = p.bar.RenderBlank()
	}
	return p
}

func (p *searchProgress) rootDone(r searchRootResult) {
	p.done++
	if p.bar != nil {
		_ = p.bar.Add(1)
		return
	}
	slog.Info("search", "method", r.Method, "task", r.TaskID, "root", r.Root, "solved", r.Solved, "expansions", r.Expansions,
		"output_tokens", r.OutputTokens, "wall_s", fmt.Sprintf("%.1f", r.WallSeconds), "done", p.done, "of", p.total)
}

func (p *searchProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
