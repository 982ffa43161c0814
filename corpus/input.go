package corpus

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// The checks below are the input rules every command of the CLI shares:
// comma lists, worker counts and split names. They return InputError
// (exit 2) with the flag named, so a rule and its message are written once.

// SplitList splits a comma-separated flag value into its trimmed,
// non-empty entries.
func SplitList(value string) []string {
	var out []string
	for _, v := range strings.Split(value, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// ParseList splits a comma-separated flag value into its trimmed, non-empty
// entries and returns bad input for an entry that is not one of allowed,
// for one given twice, or for an empty list.
func ParseList(flag, value string, allowed ...string) ([]string, error) {
	var out []string
	for _, v := range SplitList(value) {
		if !slices.Contains(allowed, v) {
			return nil, BadInput("%s: unknown value %q, want %s", flag, v, strings.Join(allowed, ", "))
		}
		if slices.Contains(out, v) {
			return nil, BadInput("%s: %s given twice", flag, v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, BadInput("%s is empty, want some of %s", flag, strings.Join(allowed, ", "))
	}
	return out, nil
}

// ParseInts parses a comma list such as "4,8,16" (the value of --flag)
// into positive ints.
func ParseInts(flag, s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return nil, BadInput("--%s: %q is not a positive integer", flag, p)
		}
		out = append(out, v)
	}
	return out, nil
}

// WorkersZero ends the help of every --workers flag: 0 is one per CPU in
// every command.
const WorkersZero = " (0: one per CPU)"

// Workers checks a --workers value: 0 means one per CPU; a negative one is
// bad input.
func Workers(n int) (int, error) {
	switch {
	case n < 0:
		return 0, BadInput("--workers %d: want ≥ 1, or 0 for one per CPU", n)
	case n == 0:
		return runtime.NumCPU(), nil
	}
	return n, nil
}

// CheckSplit returns bad input unless split (the value of flag) is one of
// the corpus splits or one of extra (e.g. "all").
func CheckSplit(flag, split string, extra ...string) error {
	want := append([]string{SplitTrain, SplitVal, SplitTest}, extra...)
	if slices.Contains(want, split) {
		return nil
	}
	return BadInput("%s %q: want %s", flag, split, strings.Join(want, ", "))
}
