package corpus

import (
	"fmt"
	"regexp"
	"strings"
)

// InputError marks an error caused by what the caller gave (an option's
// value, a file it named) rather than by the job: a program tells its user
// to fix the input (the CLI exits 2). It lives here because every package
// of triage may import corpus, so each can say "bad input" without knowing
// who called it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput formats an InputError.
func BadInput(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// FieldError is a message about fields of the options a caller gave: its
// format names each field in braces, "{Seeds} and {Resamples} must be ≥ 1",
// and Error writes the fields as the options do ("Seeds and Resamples must
// be ≥ 1"). A program that calls them by other names (the CLI: its flags)
// writes the same message with Render. The format may wrap errors with %w;
// errors.Is and errors.As see them.
type FieldError struct {
	Format string
	Args   []any
}

// fieldRef is a field reference in a FieldError's format.
var fieldRef = regexp.MustCompile(`\{([A-Z][A-Za-z0-9.]*)\}`)

// Invalid is bad input (an InputError) in the fields its format names: see
// FieldError.
func Invalid(format string, args ...any) error {
	return &InputError{Err: &FieldError{Format: format, Args: args}}
}

// FieldErrorf is a FieldError that is not bad input by itself, such as a
// hint that names the option to give next time.
func FieldErrorf(format string, args ...any) error {
	return &FieldError{Format: format, Args: args}
}

// Fields are the fields the message names, in order.
func (e *FieldError) Fields() []string {
	var out []string
	for _, m := range fieldRef.FindAllStringSubmatch(e.Format, -1) {
		out = append(out, m[1])
	}
	return out
}

// Render writes the message with each field written as name(field).
func (e *FieldError) Render(name func(field string) string) string {
	format := fieldRef.ReplaceAllStringFunc(e.Format, func(ref string) string {
		return strings.ReplaceAll(name(ref[1:len(ref)-1]), "%", "%%")
	})
	return fmt.Errorf(format, e.Args...).Error()
}

func (e *FieldError) Error() string { return e.Render(func(f string) string { return f }) }

// Unwrap returns the errors the format wraps with %w.
func (e *FieldError) Unwrap() []error {
	switch w := fmt.Errorf(e.Format, e.Args...).(type) {
	case interface{ Unwrap() error }:
		return []error{w.Unwrap()}
	case interface{ Unwrap() []error }:
		return w.Unwrap()
	}
	return nil
}

// RenderFields returns the message of err with the fields of every
// FieldError in its chain written as name(field); without one it is
// err.Error().
func RenderFields(err error, name func(field string) string) string {
	msg := err.Error()
	var walk func(error)
	walk = func(e error) {
		if fe, ok := e.(*FieldError); ok {
			msg = strings.Replace(msg, fe.Error(), fe.Render(name), 1)
		}
		switch w := e.(type) {
		case interface{ Unwrap() error }:
			if u := w.Unwrap(); u != nil {
				walk(u)
			}
		case interface{ Unwrap() []error }:
			for _, u := range w.Unwrap() {
				walk(u)
			}
		}
	}
	walk(err)
	return msg
}
