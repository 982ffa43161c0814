package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"triage/corpus"
	"triage/policy"
)

// searchSummary is one method's row of the summary table.
type searchSummary struct {
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

// summarizeSearch orders the results by method (in the order the runs were
// given), then task, then root, and fills one summary row per method.
func summarizeSearch(rep *searchReport, methods []string, resamples int, seed uint64) error {
	order := map[string]int{}
	for i, m := range methods {
		order[m] = i
	}
	sort.SliceStable(rep.Results, func(i, j int) bool { return order[rep.Results[i].Method] < order[rep.Results[j].Method] })
	for _, m := range methods {
		sum := searchSummary{Method: m}
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
			outs = append(outs, r.outcome(seed))
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

// writeSearchMarkdown prints the per-root table, the summary table and
// the fixes as diffs.
func writeSearchMarkdown(w io.Writer, rep *searchReport) error {
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

// writeSearchTrees writes the trees of finished searches in the corpus
// schema: one shard and a manifest in --out, or in --out/<method> for each
// method when several ran.
func writeSearchTrees(f *searchFlags, s *searchSetup, rep *searchReport) error {
	byMethod := map[string][]*searchRootResult{}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.Error == "" && r.tree != nil {
			byMethod[r.Method] = append(byMethod[r.Method], r)
		}
	}
	for _, run := range s.runs {
		dir := f.out
		if len(s.runs) > 1 {
			dir = filepath.Join(f.out, run.name())
		}
		rs := byMethod[run.name()]
		if len(rs) == 0 {
			slog.Warn("no finished search to write", "method", run.name(), "out", dir)
			continue
		}
		if err := writeTreeCorpus(dir, rs, f, len(s.tasks), !rep.Interrupted); err != nil {
			return err
		}
	}
	return nil
}

func writeTreeCorpus(dir string, rs []*searchRootResult, f *searchFlags, numTasks int, complete bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	name := corpus.ShardFileName(0)
	path := filepath.Join(dir, name)
	entry := corpus.ShardEntry{Index: 0, File: name, FirstTask: 0, EndTask: numTasks}
	err := evalWriteFile(path, func(fh *os.File) error {
		sw := corpus.NewShardWriter(fh, corpus.WriterOptions{Metadata: map[string]string{"triage.search": rs[0].Method}})
		for _, r := range rs {
			if err := sw.WriteTree(r.tree, r.rootIndex); err != nil {
				return err
			}
		}
		if err := sw.Close(); err != nil {
			return err
		}
		entry.Trees, entry.Rows, entry.TextBytes = sw.Trees(), sw.Rows(), sw.TextBytes()
		return fh.Sync()
	})
	if err != nil {
		return err
	}
	info, err := corpus.InspectShard(path)
	if err != nil {
		return fmt.Errorf("reopen %s: %w", path, err)
	}
	entry.Bytes, entry.UncompressedBytes = info.Bytes, info.UncompressedBytes
	t := rs[0].tree
	man := corpus.Manifest{Schema: corpus.SchemaVersion,
		Settings: corpus.BuildSettings{K: t.K, D: t.D, Roots: f.roots, Proposer: t.Proposer, Model: t.Model, Seed: f.seed,
			TasksSource: f.tasks, NumTasks: numTasks, TasksPerShard: numTasks, ShardCount: 1, RowsPerGroup: corpus.DefaultRowsPerGroup},
		Versions: map[string]string{"go": runtime.Version(), "schema": corpus.SchemaVersion, "search_method": rs[0].Method},
		Shards:   []corpus.ShardEntry{entry}, Planned: 1, Complete: complete, Rows: entry.Rows, Trees: entry.Trees}
	return evalWriteJSON(filepath.Join(dir, corpus.ManifestName(0, 1)), man)
}
