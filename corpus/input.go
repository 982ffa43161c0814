package corpus

import (
	"runtime"
	"slices"
	"strings"
)

// The checks below are rules that options of several packages share:
// worker counts and split names. They return bad input (Invalid) naming
// the option's field, so a rule and its message are written once.

// Workers checks a worker count (the field Workers): 0 means one per CPU;
// a negative one is bad input.
func Workers(n int) (int, error) {
	switch {
	case n < 0:
		return 0, Invalid("{Workers} %d: want ≥ 1, or 0 for one per CPU", n)
	case n == 0:
		return runtime.NumCPU(), nil
	}
	return n, nil
}

// CheckSplit returns bad input in the field Split unless split is one of
// the corpus splits or one of extra (e.g. "all").
func CheckSplit(split string, extra ...string) error {
	want := append([]string{SplitTrain, SplitVal, SplitTest}, extra...)
	if slices.Contains(want, split) {
		return nil
	}
	return Invalid("{Split} %q: want %s", split, strings.Join(want, ", "))
}
