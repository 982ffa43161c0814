package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"triage/search/live"

	"triage/corpus"
)

// writeSearchMarkdown prints the per-root table, the summary table and
// the fixes as diffs.
func writeSearchMarkdown(w io.Writer, rep *live.Report) error {
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
func writeSearchTrees(f *searchFlags, s *searchSetup, rep *live.Report) error {
	byMethod := map[string][]*live.RootResult{}
	for i := range rep.Results {
		r := &rep.Results[i]
		if r.Error == "" && r.Tree != nil {
			byMethod[r.Method] = append(byMethod[r.Method], r)
		}
	}
	for _, run := range s.runs {
		dir := f.out
		if len(s.runs) > 1 {
			dir = filepath.Join(f.out, run.Name())
		}
		rs := byMethod[run.Name()]
		if len(rs) == 0 {
			slog.Warn("no finished search to write", "method", run.Name(), "out", dir)
			continue
		}
		if err := writeTreeCorpus(dir, rs, f, len(s.tasks), !rep.Interrupted); err != nil {
			return err
		}
	}
	return nil
}

func writeTreeCorpus(dir string, rs []*live.RootResult, f *searchFlags, numTasks int, complete bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	name := corpus.ShardFileName(0)
	path := filepath.Join(dir, name)
	entry := corpus.ShardEntry{Index: 0, File: name, FirstTask: 0, EndTask: numTasks}
	err := evalWriteFile(path, func(fh *os.File) error {
		sw := corpus.NewShardWriter(fh, corpus.WriterOptions{Metadata: map[string]string{"triage.search": rs[0].Method}})
		for _, r := range rs {
			if err := sw.WriteTree(r.Tree, r.RootIndex); err != nil {
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
	t := rs[0].Tree
	man := corpus.Manifest{Schema: corpus.SchemaVersion,
		Settings: corpus.BuildSettings{K: t.K, D: t.D, Roots: f.roots, Proposer: t.Proposer, Model: t.Model, Seed: f.seed,
			TasksSource: f.tasks, NumTasks: numTasks, TasksPerShard: numTasks, ShardCount: 1, RowsPerGroup: corpus.DefaultRowsPerGroup},
		Versions: map[string]string{"go": runtime.Version(), "schema": corpus.SchemaVersion, "search_method": rs[0].Method},
		Shards:   []corpus.ShardEntry{entry}, Planned: 1, Complete: complete, Rows: entry.Rows, Trees: entry.Trees}
	return evalWriteJSON(filepath.Join(dir, corpus.ManifestName(0, 1)), man)
}
