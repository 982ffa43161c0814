package build_test

import (
	"errors"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
)

// TestBuildOptionsValidate: corpus build's checks name the field.
func TestBuildOptionsValidate(t *testing.T) {
	check := func(edit func(*build.BuildOptions)) error {
		o := build.BuildOptions{Config: build.BuildConfig{K: 3, D: 4, ProposerName: "mutate"}, Roots: 1, Out: "o", TasksPerShard: 1, ReferenceRuns: 1}
		edit(&o)
		return o.Validate()
	}
	if err := check(func(*build.BuildOptions) {}); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{check(func(o *build.BuildOptions) { o.Out = "" }), "Out is required"},
		{check(func(o *build.BuildOptions) { o.ReferenceRuns = 0 }), "Config.K, Config.D, Roots, TasksPerShard and ReferenceRuns must be ≥ 1"},
		{check(func(o *build.BuildOptions) { o.Workers = -1 }), "Workers -1: want ≥ 1, or 0 for one per CPU"},
		{check(func(o *build.BuildOptions) { o.Config.ProposerName = "gpt" }), `Config.ProposerName "gpt": want mutate or openai`},
	} {
		var ie *corpus.InputError
		if tc.err == nil || !errors.As(tc.err, &ie) || tc.err.Error() != tc.want {
			t.Errorf("error %v, want bad input %q", tc.err, tc.want)
		}
	}
}
