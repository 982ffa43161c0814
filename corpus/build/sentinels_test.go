package build_test

import (
	"errors"
	"fmt"
	"testing"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// TestSentinelsAreBadInput: the errors a build, merge or read returns for
// what the caller gave are bad input (exit 2) through any wrapping, and
// still match errors.Is.
func TestSentinelsAreBadInput(t *testing.T) {
	for _, s := range []error{manifest.ErrOutputExists, manifest.ErrSettingsMismatch, build.ErrInvalidTasks, manifest.ErrMergeSettings, shard.ErrCorruptShard} {
		err := fmt.Errorf("out: %w (not empty)", s)
		var ie *corpus.InputError
		if !errors.As(err, &ie) || !errors.Is(err, s) {
			t.Errorf("%v: bad input %v, errors.Is %v", s, errors.As(err, &ie), errors.Is(err, s))
		}
	}
}
