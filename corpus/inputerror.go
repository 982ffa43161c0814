package corpus

import "fmt"

// InputError marks an error caused by what the caller gave (a flag's value,
// a file it named) rather than by the job: the CLI exits 2 on it. It lives
// here because every package of triage may import corpus, so each can say
// "bad input" without importing cmd.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput formats an InputError.
func BadInput(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}
