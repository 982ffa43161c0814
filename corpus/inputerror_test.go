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

// TestFieldError: a FieldError names its fields as the options do, renders
// them by other names on request (through wrapping), stays bad input when
// made by Invalid, and lets errors.Is see what its format wraps.
func TestFieldError(t *testing.T) {
	flags := func(f string) string {
		return map[string]string{"Seeds": "--seeds", "Eval.Resamples": "--bootstrap"}[f]
	}
	err := fmt.Errorf("eval: %w", Invalid("{Seeds} and {Eval.Resamples} must be ≥ %d", 1))
	if got, want := err.Error(), "eval: Seeds and Eval.Resamples must be ≥ 1"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := RenderFields(err, flags), "eval: --seeds and --bootstrap must be ≥ 1"; got != want {
		t.Errorf("RenderFields = %q, want %q", got, want)
	}
	var ie *InputError
	var fe *FieldError
	if !errors.As(err, &ie) || !errors.As(err, &fe) {
		t.Fatalf("Invalid: bad input %v, field error %v", errors.As(err, &ie), errors.As(err, &fe))
	}
	if got := fe.Fields(); len(got) != 2 || got[0] != "Seeds" || got[1] != "Eval.Resamples" {
		t.Errorf("Fields() = %q", got)
	}
	exists := &InputError{Err: errors.New("output folder already holds a corpus build")}
	hint := FieldErrorf("%s: %w (use {Resume})", "out", exists)
	if !errors.Is(hint, exists) || !errors.As(hint, &ie) {
		t.Errorf("a wrapped sentinel is lost: %v", hint)
	}
	if got, want := RenderFields(hint, func(string) string { return "--resume" }), "out: output folder already holds a corpus build (use --resume)"; got != want {
		t.Errorf("RenderFields = %q, want %q", got, want)
	}
	plain := FieldErrorf("{Out} 100%% full")
	if errors.As(plain, &ie) {
		t.Error("FieldErrorf is bad input by itself")
	}
	if got, want := RenderFields(plain, func(string) string { return "%out" }), "%out 100% full"; got != want {
		t.Errorf("a name with %% renders as %q, want %q", got, want)
	}
	if got := RenderFields(errors.New("disk full"), flags); got != "disk full" {
		t.Errorf("an error without fields renders as %q", got)
	}
}
