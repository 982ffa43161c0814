package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"triage/corpus"
	"triage/policy"
	"triage/train"
	"triage/train/experiment"
)

func TestParseDatasets(t *testing.T) {
	names, dirs, err := parseDatasets([]string{"bundled=out/b1", "out/b5", " mbpp=out/m ", ""})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"bundled", "mbpp"}) || !reflect.DeepEqual(dirs, [][]string{{"out/b1", "out/b5"}, {"out/m"}}) {
		t.Errorf("got %v %v", names, dirs)
	}
	for _, bad := range [][]string{
		{"out/b1", "mbpp=out/m"},     // first folder unnamed
		{"a=x"},                      // one dataset
		{"a=x", "a=y"},               // a name twice
		{"a=", "b=y"}, {"=x", "b=y"}, // empty parts
		{},
	} {
		if _, _, err := parseDatasets(bad); err == nil {
			t.Errorf("parseDatasets(%q) = nil error", bad)
		}
	}
}

// TestLODOFlagChecks: cv --lodo's flag checks come before any corpus is
// opened and name the flag.
func TestLODOFlagChecks(t *testing.T) {
	f := &trainFlags{Setup: train.Setup{Corpus: []string{"a=no-such-a", "b=no-such-b"}, Out: "o"}}
	for _, tc := range []struct {
		l    lodoFlags
		ps   policy.ParamSet
		want string
	}{
		{lodoFlags{hybridGrid: experiment.DefaultHybridGrid}, policy.ParamSet{"rex": {}}, "--params: with --lodo every baseline is tuned on the training dataset's val split"},
		{lodoFlags{hybridGrid: experiment.DefaultHybridGrid, trainSeeds: "1,x"}, nil, `--train-seeds: "x" is not a positive integer`},
		{lodoFlags{hybridGrid: "C"}, nil, "--hybrid-grid: "},
	} {
		_, err := lodoConfig(f, &tc.l, tc.ps, 1, 1, []int{4})
		var ie *corpus.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want bad input %q", err, tc.want)
		}
	}
}

// TestCheckReplay: cv's replay flags are checked in order, naming the flag.
func TestCheckReplay(t *testing.T) {
	if bs, ps, err := checkReplay(1, 1, "4,8", ""); err != nil || len(bs) != 2 || len(ps) != 0 {
		t.Fatalf("checkReplay(valid) = %v, %v, %v", bs, ps, err)
	}
	for _, tc := range []struct {
		seeds, resamples int
		budgets, params  string
		want             string
	}{
		{0, 1, "4", "", "--seeds and --bootstrap must be ≥ 1"},
		{1, 1, "4,x", "", `--budgets: "x" is not a positive integer`},
		{1, 1, "4", "/nonexistent/p.json", "--params: "},
	} {
		_, _, err := checkReplay(tc.seeds, tc.resamples, tc.budgets, tc.params)
		var ie *corpus.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want bad input %q", err, tc.want)
		}
	}
}
