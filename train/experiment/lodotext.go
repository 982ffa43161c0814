package experiment

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"triage/policy"
)

// WriteLODO writes every direction as `triage cv --lodo` prints them, the S
// column at the largest of budgets. Like WriteMarkdown it does not check
// the writer's errors; it returns nil to fit a text printer's signature.
func WriteLODO(w io.Writer, dirs []LODODirection, budgets []int) error {
	for _, d := range dirs {
		d.WriteMarkdown(w, strconv.Itoa(slices.Max(budgets)))
	}
	return nil
}

// WriteLODOVerdict writes the judge's verdict first: per direction and
// pooled, each scored policy's paired ratio against its hardest baseline
// (the largest ratio of E[T] over the trees both solve), per training seed,
// with its 95 % interval and the smallest ratio those trees could tell
// from 1 at 80 % power; then every direction in full (WriteLODO).
func WriteLODOVerdict(w io.Writer, dirs []LODODirection, pooled *LODOPooled, budgets []int) error {
	fmt.Fprint(w, "## Verdict: each policy against its hardest baseline\n\n")
	fmt.Fprint(w, "Ratio of E[T] to the baseline with the largest ratio, over the trees both solve, per training seed "+
		"(95 % interval clustered by task; detectable: the smallest ratio these trees tell from 1 at 80 % power).\n\n")
	fmt.Fprint(w, "| held out | trained on | trees (with a fix) | tasks | policy | seed | hardest baseline | ratio | 95 % | detectable |\n")
	fmt.Fprint(w, "|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(test, train string, trees, fix, tasks int, seed string, ps []policy.Paired) {
		for _, p := range hardest(ps) {
			fmt.Fprintf(w, "| %s | %s | %d (%d) | %d | %s | %s | %s | %.3f | %.3f–%.3f | %.3f |\n",
				test, train, trees, fix, tasks, p.A, seed, p.B, p.Ratio, p.RatioLo, p.RatioHi, p.Detectable)
		}
	}
	for _, d := range dirs {
		for _, r := range d.Runs {
			row(d.Test, d.Train, d.Trees, d.FixTrees, d.Tasks, strconv.FormatUint(r.Seed, 10), r.Paired)
		}
		if d.Ensemble != nil {
			row(d.Test, d.Train, d.Trees, d.FixTrees, d.Tasks, "all", d.Ensemble.Paired)
		}
	}
	if pooled != nil {
		fix := 0
		for _, d := range dirs {
			fix += d.FixTrees
		}
		for _, r := range pooled.Runs {
			row("pooled", "the others", pooled.Trees, fix, pooled.Tasks, strconv.FormatUint(r.Seed, 10), r.Paired)
		}
		row("pooled", "the others", pooled.Trees, fix, pooled.Tasks, "all", pooled.Ensemble)
	}
	fmt.Fprintln(w)
	writeLODOVal(w, dirs)
	return WriteLODO(w, dirs, budgets)
}

// writeLODOVal writes what the training sources' val splits say: each
// run's val E[T] against the best baseline's there. Settings of the
// learned policy are chosen on these figures, never on the held-out ones.
func writeLODOVal(w io.Writer, dirs []LODODirection) {
	fmt.Fprint(w, "## On the training sources' val splits (what a choice of settings may read)\n\n")
	fmt.Fprint(w, "| trained on | seed | learned val E[T] | best baseline there | its val E[T] | ratio |\n|---|---|---|---|---|---|\n")
	for _, d := range dirs {
		best, bestET := "", math.Inf(1)
		for _, n := range slices.Sorted(maps.Keys(d.ValET)) {
			if d.ValET[n] < bestET {
				best, bestET = n, d.ValET[n]
			}
		}
		for _, r := range d.Runs {
			if r.Val == nil || best == "" {
				continue
			}
			fmt.Fprintf(w, "| %s | %d | %.2f | %s | %.2f | %.3f |\n", d.Train, r.Seed, r.Val.ET, best, bestET, r.Val.ET/bestET)
		}
	}
	fmt.Fprintln(w)
}

// hardest keeps, for each policy of ps (in order of first appearance), its
// comparison with the largest ratio.
func hardest(ps []policy.Paired) []policy.Paired {
	var out []policy.Paired
	at := map[string]int{}
	for _, p := range ps {
		i, ok := at[p.A]
		switch {
		case !ok:
			at[p.A] = len(out)
			out = append(out, p)
		case p.Ratio > out[i].Ratio:
			out[i] = p
		}
	}
	return out
}

// WriteMarkdown writes the direction as `triage cv --lodo` prints it: the tuned baselines, E[T] and tokens of
// every policy (learned and hybrid as mean ± sd over the training seeds, the
// ensemble of the seeds' models as one policy),
// and the paired ratios against every baseline per seed.
// (maxB: the largest budget, the S column).
func (d LODODirection) WriteMarkdown(w io.Writer, maxB string) {
	fmt.Fprintf(w, "## train on %s, score on %s (%s split: %d trees, %d tasks)\n\n", d.Train, d.Test, d.TestSplit, d.Trees, d.Tasks)
	var tuned []string
	for _, n := range sortedNames(d.Tuned) {
		tuned = append(tuned, n+" "+d.Tuned[n].String())
	}
	fmt.Fprintf(w, "Tuned on %s's val split: %s.\n\n", d.Train, strings.Join(tuned, "; "))
	for _, r := range d.Runs {
		fmt.Fprintf(w, "- seed %d: checkpoint %s (step %d, val E[T] %.2f), hybrid %s\n", r.Seed, r.Checkpoint, r.BestStep, r.Val.ET, r.Hybrid.String())
	}
	fmt.Fprintf(w, "\n| policy | E[T] | tokens | S(%s) |\n|---|---|---|---|\n", maxB)
	for _, name := range []string{"learned", "hybrid"} {
		et, ok := d.Spread[name+" E[T]"]
		if !ok {
			continue
		}
		tok := d.Spread[name+" tokens"]
		sv := d.Spread[name+" S"]
		fmt.Fprintf(w, "| %s (%d seeds) | %.2f ± %.2f sd (%s) | %.0f ± %.0f sd | %.3f ± %.3f sd |\n", name, len(et.Each), et.Mean, et.SD, joinFloats(et.Each), tok.Mean, tok.SD, sv.Mean, sv.SD)
	}
	if e := d.Ensemble; e != nil {
		for _, name := range []string{"ensemble", "ensemble-hybrid"} {
			if s, ok := e.Summary[name]; ok {
				fmt.Fprintf(w, "| %s (mean of %d models) | %.2f ± %.2f | %.0f ± %.0f | %.3f |\n", name, len(d.Runs), s.ET, s.ETSE, s.Tokens, s.TokensSE, s.S[maxB])
			}
		}
	}
	for _, name := range policy.Baselines {
		s, ok := d.Baselines[name]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %.2f ± %.2f | %.0f ± %.0f | %.3f |\n", name, s.ET, s.ETSE, s.Tokens, s.TokensSE, s.S[maxB])
	}
	fmt.Fprint(w, "\nRatio of E[T] to each baseline over the trees both solve, mean ± sd over the training seeds (each seed below):\n\n")
	fmt.Fprint(w, "| policy | baseline | ratio |\n|---|---|---|\n")
	for _, name := range []string{"learned", "hybrid"} {
		for _, b := range policy.Baselines {
			if sp, ok := d.Spread[name+" / "+b]; ok {
				fmt.Fprintf(w, "| %s | %s | %.3f ± %.3f (%s) |\n", name, b, sp.Mean, sp.SD, joinFloats(sp.Each))
			}
		}
	}
	if e := d.Ensemble; e != nil {
		for _, p := range e.Paired {
			fmt.Fprintf(w, "| %s | %s | %.3f |\n", p.A, p.B, p.Ratio)
		}
	}
	fmt.Fprint(w, "\nPaired by tree, per seed (95% interval from a bootstrap clustered by task):\n\n")
	fmt.Fprint(w, "| policy | seed | baseline | ΔE[T] | ratio | 95% | detectable | trees |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range d.Runs {
		for _, p := range r.Paired {
			fmt.Fprintf(w, "| %s | %d | %s | %+.2f ± %.2f | %.3f | %.3f–%.3f | %.3f | %d |\n", p.A, r.Seed, p.B, p.Diff, p.DiffSE, p.Ratio, p.RatioLo, p.RatioHi, p.Detectable, p.Trees)
		}
	}
	if e := d.Ensemble; e != nil {
		for _, p := range e.Paired {
			fmt.Fprintf(w, "| %s | all | %s | %+.2f ± %.2f | %.3f | %.3f–%.3f | %.3f | %d |\n", p.A, p.B, p.Diff, p.DiffSE, p.Ratio, p.RatioLo, p.RatioHi, p.Detectable, p.Trees)
		}
	}
	fmt.Fprintln(w)
}

// sortedNames are m's keys in order.
func sortedNames(m map[string]policy.Params) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// joinFloats joins xs, two decimals each.
func joinFloats(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(s, ", ")
}
