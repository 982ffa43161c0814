package corpus

import (
	"errors"
	"fmt"
	"testing"
)

// TestBadInput: the message is the formatted one, unchanged, and the mark
// survives wrapping (the CLI exits 2 on it).
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
		bad  bool
	}{
		{BadInput("--k %d: want ≥ 1", 0), "--k 0: want ≥ 1", true},
		{fmt.Errorf("load: %w", BadInput("no task")), "load: no task", true},
		{errors.New("disk full"), "disk full", false},
	} {
		var ie *InputError
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("message %q, want %q", got, tc.want)
		}
		if errors.As(tc.err, &ie) != tc.bad {
			t.Errorf("%q: bad input %v, want %v", tc.want, !tc.bad, tc.bad)
		}
	}
}

// TestSentinelsAreBadInput: the errors a build, merge or read returns for
// what the caller gave are bad input (exit 2) through any wrapping, and
// still match errors.Is.
func TestSentinelsAreBadInput(t *testing.T) {
	for _, s := range []error{ErrOutputExists, ErrSettingsMismatch, ErrInvalidTasks, ErrMergeSettings, ErrCorruptShard} {
		err := fmt.Errorf("out: %w (not empty)", s)
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, s) {
			t.Errorf("%v: bad input %v, errors.Is %v", s, errors.As(err, &ie), errors.Is(err, s))
		}
	}
}
