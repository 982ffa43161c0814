package corpus

import (
	"errors"
	"reflect"
	"runtime"
	"testing"
)

// TestInputChecks: each shared check accepts its valid values and returns
// bad input with the flag named for the rest.
func TestInputChecks(t *testing.T) {
	list := func(v string) (any, error) { return ParseList("--modes", v, "a", "b") }
	ints := func(v string) (any, error) { return ParseInts("budgets", v) }
	split := func(v string) (any, error) { return nil, CheckSplit("--split", v, "all") }
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
		{split, "all", nil, ""},
		{split, "dev", nil, `--split "dev": want train, val, test, all`},
	} {
		got, err := tc.parse(tc.in)
		var ie *InputError
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr || !errors.As(err, &ie)):
			t.Errorf("%q: error %v, want bad input %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && tc.want != nil && !reflect.DeepEqual(got, tc.want):
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
	if n, err := Workers(0); n != runtime.NumCPU() || err != nil {
		t.Errorf("Workers(0) = %d, %v; want one per CPU", n, err)
	}
	if n, err := Workers(3); n != 3 || err != nil {
		t.Errorf("Workers(3) = %d, %v", n, err)
	}
	if _, err := Workers(-1); err == nil || err.Error() != "--workers -1: want ≥ 1, or 0 for one per CPU" {
		t.Errorf("Workers(-1): %v", err)
	}
}

// TestBuildOptionsValidate: corpus build's checks name the flag.
func TestBuildOptionsValidate(t *testing.T) {
	check := func(edit func(*BuildOptions)) error {
		o := BuildOptions{Config: BuildConfig{K: 3, D: 4, ProposerName: "mutate"}, Roots: 1, Out: "o", TasksPerShard: 1, ReferenceRuns: 1}
		edit(&o)
		return o.Validate()
	}
	if err := check(func(*BuildOptions) {}); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{check(func(o *BuildOptions) { o.Out = "" }), "--out is required"},
		{check(func(o *BuildOptions) { o.ReferenceRuns = 0 }), "--k, --depth, --roots, --tasks-per-shard and --reference-runs must be ≥ 1"},
		{check(func(o *BuildOptions) { o.Workers = -1 }), "--workers -1: want ≥ 1, or 0 for one per CPU"},
		{check(func(o *BuildOptions) { o.Config.ProposerName = "gpt" }), `--proposer "gpt": want mutate or openai`},
	} {
		var ie *InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || tc.err.Error() != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}

// TestReplicateOptionsValidate: corpus replicate's checks name the flag.
func TestReplicateOptionsValidate(t *testing.T) {
	src := []string{t.TempDir()}
	for _, tc := range []struct {
		opts ReplicateOptions
		out  string
		want string
	}{
		{ReplicateOptions{Copies: 0, RowsPerGroup: 1}, "o", "--out and --copies >= 1 are required"},
		{ReplicateOptions{Copies: 1, RowsPerGroup: 1}, "", "--out and --copies >= 1 are required"},
		{ReplicateOptions{Copies: 1, Shards: -1, RowsPerGroup: 1}, "o", "--shards must be ≥ 0 and --rows-per-group ≥ 1"},
		{ReplicateOptions{Copies: 1, RowsPerGroup: 1, Split: "dev"}, "o", `--split "dev": want train, val, test`},
	} {
		err := tc.opts.Validate(tc.out, src)
		var ie *InputError
		if err == nil || !errors.As(err, &ie) || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want bad input %q", tc.opts, err, tc.want)
		}
	}
}
