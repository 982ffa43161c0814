package train

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"triage/corpus"
	"triage/policy"
)

func TestParseDatasets(t *testing.T) {
	names, dirs, err := ParseDatasets([]string{"bundled=out/b1", "out/b5", " mbpp=out/m ", ""})
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
		if _, _, err := ParseDatasets(bad); err == nil {
			t.Errorf("ParseDatasets(%q) = nil error", bad)
		}
	}
}

// TestLODOCommandChecks: cv --lodo's flag checks come before any corpus is
// opened and name the flag.
func TestLODOCommandChecks(t *testing.T) {
	setup := Setup{Corpus: []string{"a=no-such-a", "b=no-such-b"}, Out: "o"}
	for _, tc := range []struct {
		c    LODOConfig
		want string
	}{
		{LODOConfig{Setup: setup, Params: policy.ParamSet{"rex": {}}}, "--params: with --lodo every baseline is tuned on the training dataset's val split"},
		{LODOConfig{Setup: setup, TrainSeedList: "1,x"}, `--train-seeds: "x" is not a positive integer`},
		{LODOConfig{Setup: setup, LODO: LODOOptions{HybridGrid: "C"}}, "--hybrid-grid: "},
	} {
		_, err := LODOCommand(context.Background(), tc.c)
		var ie *corpus.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want bad input %q", err, tc.want)
		}
	}
}

// TestCheckReplay: cv's replay flags are checked in order, naming the flag.
func TestCheckReplay(t *testing.T) {
	if bs, ps, err := CheckReplay(1, 1, "4,8", ""); err != nil || len(bs) != 2 || len(ps) != 0 {
		t.Fatalf("CheckReplay(valid) = %v, %v, %v", bs, ps, err)
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
		_, _, err := CheckReplay(tc.seeds, tc.resamples, tc.budgets, tc.params)
		var ie *corpus.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want bad input %q", err, tc.want)
		}
	}
}
