package main

import (
	"errors"
	"reflect"
	"testing"

	"triage/corpus"
)

// TestInputChecks: each shared flag check accepts its valid values and
// returns bad input with the flag named for the rest.
func TestInputChecks(t *testing.T) {
	list := func(v string) (any, error) { return parseList("--modes", v, "a", "b") }
	ints := func(v string) (any, error) { return parseInts("budgets", v) }
	budgets := func(v string) (any, error) { return parseBudgets("budgets", v) }
	for _, tc := range []struct {
		parse   func(string) (any, error)
		in      string
		want    any
		wantErr string
	}{
		{list, " b, a ,", []string{"b", "a"}, ""},
		{list, "a,c", nil, `--modes: unknown value "c", want a, b`},
		{list, "a,a", nil, "--modes: a given twice"},
		{list, " , ", nil, "--modes is empty, want some of a, b"},
		{ints, "4, 8,16", []int{4, 8, 16}, ""},
		{ints, "4,0", nil, `--budgets: "0" is not a positive integer`},
		{ints, "x", nil, `--budgets: "x" is not a positive integer`},
		{budgets, "4,10000", []int{4, 10000}, ""},
		{budgets, "4,10001", nil, "--budgets: 10001 is above the largest budget, 10000"},
	} {
		got, err := tc.parse(tc.in)
		var ie *corpus.InputError
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr || !errors.As(err, &ie)):
			t.Errorf("%q: error %v, want bad input %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && tc.want != nil && !reflect.DeepEqual(got, tc.want):
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestFlagged: a library's field error reads with the command's flags, a
// field the command does not name keeps its name, and the error is still
// bad input.
func TestFlagged(t *testing.T) {
	names := flagNames{"Seeds": "--seeds"}
	err := names.flagged(corpus.Invalid("{Seeds} and {Other} must be ≥ 1"))
	var ie *corpus.InputError
	if err.Error() != "--seeds and Other must be ≥ 1" || !errors.As(err, &ie) {
		t.Errorf("flagged: %v (bad input %v)", err, errors.As(err, &ie))
	}
	plain := errors.New("disk full")
	if names.flagged(plain) != plain || names.flagged(nil) != nil {
		t.Error("an error without fields changed")
	}
}
