// Package report renders the results of `triage eval`: a Markdown table,
// the JSON summary, and a self-contained HTML report with the success
// curves S(B) of every policy (SVG drawn by github.com/go-analyze/charts)
// and an inline, dependency-free tree viewer.
//
// Imports: search/eval, the engine (search) and corpus.
package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"triage/policy"
	"triage/search/eval"
)

// PolicyResult is one policy's summary, as package eval computes it.
type PolicyResult = eval.PolicyResult

// Report is everything `triage eval` reports: the results of eval.Evaluate
// with their title and origin, and the viewed tree.
type Report struct {
	Title    string         `json:"title"`
	Corpus   string         `json:"corpus"`
	Split    string         `json:"split"`
	Trees    int            `json:"trees"`
	Tasks    int            `json:"tasks"`
	Budgets  []int          `json:"budgets"`
	Policies []PolicyResult `json:"policies"`
	// Paired holds the tree-by-tree comparisons asked for (eval.Options.Paired).
	Paired []policy.Paired `json:"paired,omitempty"`
	// BySource holds the same per task source (eval.Options.BySource).
	BySource []eval.SourceResults `json:"by_source,omitempty"`
	// Viewer is the tree shown in the HTML report (nil: none).
	Viewer *Viewer `json:"viewer,omitempty"`
}

// New returns the report of res, titled, for the split of a corpus.
func New(title, corpusName, split string, res *eval.Results) *Report {
	return &Report{Title: title, Corpus: corpusName, Split: split, Trees: res.Trees, Tasks: res.Tasks,
		Budgets: res.Budgets, Policies: res.Policies, Paired: res.Paired, BySource: res.BySource}
}

// maxBudget is the largest budget of r (0 when none).
func (r *Report) maxBudget() int {
	m := 0
	for _, b := range r.Budgets {
		m = max(m, b)
	}
	return m
}

// WriteMarkdown writes the results table: E[T] and tokens (trees with a
// fix), then S(B) and AUSC(B) per budget and C at the largest budget, each
// "value ± standard error".
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d trees, %d tasks, split %s; ± is the standard error of a bootstrap clustered by task.\n\n", r.Trees, r.Tasks, r.Split)
	head := []string{"policy", "E[T]", "tokens"}
	for _, bd := range r.Budgets {
		head = append(head, fmt.Sprintf("S(%d)", bd))
	}
	mb := strconv.Itoa(r.maxBudget())
	head = append(head, "C("+mb+")", "AUSC("+mb+")")
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for range head {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, p := range r.Policies {
		s := p.Summary
		row := []string{p.Name, pm(s.ET, s.ETSE, 2), pm(s.Tokens, s.TokensSE, 0)}
		for _, bd := range r.Budgets {
			k := strconv.Itoa(bd)
			row = append(row, pm(s.S[k], s.SSE[k], 3))
		}
		row = append(row, pm(s.C[mb], s.CSE[mb], 2), pm(s.AUSC[mb], s.AUSCSE[mb], 3))
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	if len(r.Paired) > 0 {
		b.WriteString("\nPaired by tree, over the trees both solve (ratio of E[T]; 95% interval from a bootstrap clustered by task):\n\n")
		b.WriteString("| policy | against | ΔE[T] | ratio | 95% | trees |\n|---|---|---|---|---|---|\n")
		for _, p := range r.Paired {
			fmt.Fprintf(&b, "| %s | %s | %+.2f ± %.2f | %.3f | %.3f–%.3f | %d |\n", p.A, p.B, p.Diff, p.DiffSE, p.Ratio, p.RatioLo, p.RatioHi, p.Trees)
		}
	}
	writeBySource(&b, r.BySource)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBySource writes one row per task source and paired policy: its
// E[T] there, the baseline (a policy that reads no model) with the lowest
// E[T] there and the paired ratio of the two over the trees both solve.
func writeBySource(b *strings.Builder, srcs []eval.SourceResults) {
	if len(srcs) == 0 {
		return
	}
	b.WriteString("\nBy task source: each compared policy against the baseline with the lowest E[T] on that source's trees (paired ratio over the trees both solve; 95% interval clustered by task):\n\n")
	b.WriteString("| source | trees (with a fix) | tasks | policy | E[T] | best baseline | its E[T] | ratio | 95% |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, sr := range srcs {
		et := map[string]policy.Summary{}
		for _, p := range sr.Policies {
			et[p.Name] = p.Summary
		}
		for _, name := range pairedNames(sr.Paired) {
			best := ""
			for _, p := range sr.Policies {
				if p.Name != name && !policy.NeedsScorer(p.Name) && p.Summary.Solved > 0 && (best == "" || p.Summary.ET < et[best].ET) {
					best = p.Name
				}
			}
			i := slices.IndexFunc(sr.Paired, func(p policy.Paired) bool { return p.A == name && p.B == best })
			if best == "" || i < 0 {
				continue
			}
			pr := sr.Paired[i]
			fmt.Fprintf(b, "| %s | %d (%d) | %d | %s | %s | %s | %s | %.3f | %.3f–%.3f |\n", sr.Source, sr.Trees, sr.FixTrees, sr.Tasks,
				name, pm(et[name].ET, et[name].ETSE, 2), best, pm(et[best].ET, et[best].ETSE, 2), pr.Ratio, pr.RatioLo, pr.RatioHi)
		}
	}
}

// pairedNames are the compared policies of ps, in order of first appearance.
func pairedNames(ps []policy.Paired) []string {
	var out []string
	for _, p := range ps {
		if !slices.Contains(out, p.A) {
			out = append(out, p.A)
		}
	}
	return out
}

func pm(v, se float64, prec int) string {
	return strconv.FormatFloat(v, 'f', prec, 64) + " ± " + strconv.FormatFloat(se, 'f', prec, 64)
}

// PolicyJSON is one policy's entry of the JSON summary.
type PolicyJSON map[string]any

// JSON returns the summary object of `triage eval --json`:
// {"policies": {"<name>": {"ET", "ET_se", "tokens", "tokens_se", "S": {"16": …},
// "S_se", "C", "C_se", "AUSC", "AUSC_se", "AUSC<maxB>", "AUSC<maxB>_se",
// "solved_trees", "seeds", "params"}}, "trees": N, "tasks": N, "split", "budgets"}.
func JSON(r *Report) map[string]any {
	pols := map[string]any{}
	mb := strconv.Itoa(r.maxBudget())
	for _, p := range r.Policies {
		s := p.Summary
		pols[p.Name] = PolicyJSON{
			"ET": s.ET, "ET_se": s.ETSE, "tokens": s.Tokens, "tokens_se": s.TokensSE,
			"S": s.S, "S_se": s.SSE, "C": s.C, "C_se": s.CSE, "AUSC": s.AUSC, "AUSC_se": s.AUSCSE,
			"AUSC" + mb: s.AUSC[mb], "AUSC" + mb + "_se": s.AUSCSE[mb],
			"solved_trees": s.Solved, "seeds": p.Seeds, "params": p.Params,
		}
	}
	out := map[string]any{"policies": pols, "trees": r.Trees, "tasks": r.Tasks, "split": r.Split, "budgets": r.Budgets}
	if len(r.Paired) > 0 {
		out["paired"] = r.Paired
	}
	if len(r.BySource) > 0 {
		out["by_source"] = r.BySource
	}
	return out
}
