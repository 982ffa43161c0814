package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"triage/corpus"
	"triage/search/eval"
)

// The checks below are the input rules every command shares: comma lists
// and worker counts. They return bad input (exit 2) with the flag named, so
// a rule and its message are written once.

// splitList splits a comma-separated flag value into its trimmed,
// non-empty entries.
func splitList(value string) []string {
	var out []string
	for _, v := range strings.Split(value, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// parseList splits a comma-separated flag value into its trimmed, non-empty
// entries and returns bad input for an entry that is not one of allowed,
// for one given twice, or for an empty list.
func parseList(flag, value string, allowed ...string) ([]string, error) {
	var out []string
	for _, v := range splitList(value) {
		if !slices.Contains(allowed, v) {
			return nil, badInput("%s: unknown value %q, want %s", flag, v, strings.Join(allowed, ", "))
		}
		if slices.Contains(out, v) {
			return nil, badInput("%s: %s given twice", flag, v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, badInput("%s is empty, want some of %s", flag, strings.Join(allowed, ", "))
	}
	return out, nil
}

// parseInts parses a comma list such as "4,8,16" (the value of --flag)
// into positive ints.
func parseInts(flag, s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 1 {
			return nil, badInput("--%s: %q is not a positive integer", flag, p)
		}
		out = append(out, v)
	}
	return out, nil
}

// workersZero ends the help of every --workers flag: 0 is one per CPU in
// every command.
const workersZero = " (0: one per CPU)"

// flagNames maps the option fields that the packages name in their errors
// (corpus.FieldError) to what a command calls them: its flags ("--seeds"),
// or a word ("corpus folder").
type flagNames map[string]string

// commonFlags are the fields every command calls alike.
var commonFlags = flagNames{"Workers": "--workers", "Split": "--split", "Out": "--out", "Corpus": "--corpus",
	"Tasks": "--tasks", "SkipBadLines": "--skip-bad-lines", "Commit": "--commit", "Limits": "--sandbox-limits"}

// with returns the common names with more added (or replaced).
func (m flagNames) with(more flagNames) flagNames {
	out := flagNames{}
	for k, v := range m {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// flagged returns err with the fields its FieldErrors name written as m
// names them (a field m does not name keeps its own name); errors.Is and
// errors.As see through it.
func (m flagNames) flagged(err error) error {
	if err == nil {
		return nil
	}
	msg := corpus.RenderFields(err, func(field string) string {
		if name, ok := m[field]; ok {
			return name
		}
		return field
	})
	if msg == err.Error() {
		return err
	}
	return &flaggedError{msg: msg, err: err}
}

// flaggedError is an error whose message names flags where the error
// itself names option fields.
type flaggedError struct {
	msg string
	err error
}

func (e *flaggedError) Error() string { return e.msg }
func (e *flaggedError) Unwrap() error { return e.err }

// budgetsUsage is the help of the --budgets flags.
var budgetsUsage = fmt.Sprintf("budgets B of S(B), C(B), AUSC(B), each 1..%d", eval.MaxBudget)

// parseBudgets parses a --budgets list (the value of --flag): positive ints
// up to eval.MaxBudget; anything else is bad input.
func parseBudgets(flag, s string) ([]int, error) {
	bs, err := parseInts(flag, s)
	for _, b := range bs {
		if b > eval.MaxBudget {
			return nil, badInput("--%s: %d is above the largest budget, %d", flag, b, eval.MaxBudget)
		}
	}
	return bs, err
}
