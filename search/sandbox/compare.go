package sandbox

import (
	"fmt"
	"sort"

	"triage/corpus"
)

// Verdicts maps each test name to whether it passed; when the run did not
// complete (Status other than ok) every test counts as failed.
func Verdicts(ex corpus.Execution) map[string]bool {
	m := make(map[string]bool, len(ex.Tests))
	for _, t := range ex.Tests {
		m[t.Name] = t.Passed && ex.Status == corpus.StatusOK
	}
	return m
}

// SameVerdicts reports whether a and b agree on every test's verdict (a
// test missing on one side counts as failed there) and on Solved. When they
// differ, why names the first difference.
func SameVerdicts(a, b corpus.Execution) (same bool, why string) {
	va, vb := Verdicts(a), Verdicts(b)
	names := make([]string, 0, len(va)+len(vb))
	for n := range va {
		names = append(names, n)
	}
	for n := range vb {
		if _, ok := va[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if va[n] != vb[n] {
			return false, fmt.Sprintf("test %q: %v vs %v (status %s vs %s)", n, va[n], vb[n], a.Status, b.Status)
		}
	}
	if a.Solved() != b.Solved() {
		return false, fmt.Sprintf("solved %v vs %v (status %s vs %s, %d vs %d tests)", a.Solved(), b.Solved(), a.Status, b.Status, len(a.Tests), len(b.Tests))
	}
	return true, ""
}
