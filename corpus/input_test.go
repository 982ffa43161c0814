package corpus

import (
	"errors"
	"runtime"
	"testing"
)

// TestInputChecks: each shared check accepts its valid values and returns
// bad input with the field named for the rest.
func TestInputChecks(t *testing.T) {
	if err := CheckSplit("all", "all"); err != nil {
		t.Errorf("CheckSplit(all): %v", err)
	}
	var ie *InputError
	var fe *FieldError
	err := CheckSplit("dev", "all")
	if err == nil || err.Error() != `Split "dev": want train, val, test, all` || !errors.As(err, &ie) || !errors.As(err, &fe) {
		t.Errorf("CheckSplit(dev): %v", err)
	}
	if n, err := Workers(0); n != runtime.NumCPU() || err != nil {
		t.Errorf("Workers(0) = %d, %v; want one per CPU", n, err)
	}
	if n, err := Workers(3); n != 3 || err != nil {
		t.Errorf("Workers(3) = %d, %v", n, err)
	}
	if _, err := Workers(-1); err == nil || err.Error() != "Workers -1: want ≥ 1, or 0 for one per CPU" {
		t.Errorf("Workers(-1): %v", err)
	}
}

// TestBuildOptionsValidate: corpus build's checks name the field.
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
		{check(func(o *BuildOptions) { o.Out = "" }), "Out is required"},
		{check(func(o *BuildOptions) { o.ReferenceRuns = 0 }), "Config.K, Config.D, Roots, TasksPerShard and ReferenceRuns must be ≥ 1"},
		{check(func(o *BuildOptions) { o.Workers = -1 }), "Workers -1: want ≥ 1, or 0 for one per CPU"},
		{check(func(o *BuildOptions) { o.Config.ProposerName = "gpt" }), `Config.ProposerName "gpt": want mutate or openai`},
	} {
		var ie *InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || tc.err.Error() != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}

// TestReplicateOptionsValidate: corpus replicate's checks name the field.
func TestReplicateOptionsValidate(t *testing.T) {
	src := []string{t.TempDir()}
	for _, tc := range []struct {
		opts ReplicateOptions
		out  string
		want string
	}{
		{ReplicateOptions{Copies: 0, RowsPerGroup: 1}, "o", "Out and Copies >= 1 are required"},
		{ReplicateOptions{Copies: 1, RowsPerGroup: 1}, "", "Out and Copies >= 1 are required"},
		{ReplicateOptions{Copies: 1, Shards: -1, RowsPerGroup: 1}, "o", "Shards must be ≥ 0 and RowsPerGroup ≥ 1"},
		{ReplicateOptions{Copies: 1, RowsPerGroup: 1, Split: "dev"}, "o", `Split "dev": want train, val, test`},
	} {
		err := tc.opts.Validate(tc.out, src)
		var ie *InputError
		if err == nil || !errors.As(err, &ie) || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want bad input %q", tc.opts, err, tc.want)
		}
	}
}
