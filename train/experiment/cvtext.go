package experiment

import (
	"fmt"
	"io"
	"strings"

	"triage/policy"
)

// PairedWithBaselines compares every learned variant (names starting with "learned")
// with every baseline, tree by tree.
func PairedWithBaselines(order []string, outs map[string][]policy.Outcome, resamples int, seed uint64) []policy.Paired {
	var ps []policy.Paired
	for _, a := range order {
		if !strings.HasPrefix(a, "learned") {
			continue
		}
		for _, b := range order {
			if strings.HasPrefix(b, "learned") {
				continue
			}
			p, err := policy.ComparePaired(a, outs[a], b, outs[b], resamples, seed)
			if err != nil {
				continue // no tree solved by both: nothing to compare
			}
			ps = append(ps, p)
		}
	}
	return ps
}

// WriteFolds writes one line per fold of a cross-validation, then a blank
// line, as `triage cv` prints them before its table.
func WriteFolds(w io.Writer, folds []CVFold) {
	for _, fo := range folds {
		fmt.Fprintf(w, "fold %d: %d held-out tasks, %d trees, val E[T] %.2f, held-out learned E[T] %.2f (%s)\n",
			fo.Fold, fo.Tasks, fo.Trees, fo.Val.ET, fo.LearnedET, fo.Checkpoint)
	}
	fmt.Fprintln(w)
}

// WritePaired writes the paired comparisons (PairedWithBaselines) as the
// Markdown table `triage cv` prints after its summary.
func WritePaired(w io.Writer, paired []policy.Paired) {
	fmt.Fprint(w, "\nPaired by tree (the trees both policies solve; ± and the 95% interval of the ratio from a bootstrap clustered by task):\n\n")
	fmt.Fprintln(w, "| learned | baseline | ΔE[T] | ratio | 95% | trees | tasks |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, p := range paired {
		fmt.Fprintf(w, "| %s | %s | %+.2f ± %.2f | %.3f | %.3f–%.3f | %d | %d |\n", p.A, p.B, p.Diff, p.DiffSE, p.Ratio, p.RatioLo, p.RatioHi, p.Trees, p.Tasks)
	}
}
