package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// RunOptions are the settings of one test-suite run that a caller may choose
// per run: the time limit, and whether to collect per-test line coverage
// (TestResult.Lines), which only a proposer that localizes faults reads and
// which slows a run down.
type RunOptions struct {
	// Timeout is the wall-clock limit; zero means the executor's own.
	Timeout time.Duration
	// Coverage asks for TestResult.Lines.
	Coverage bool
}

// OptionsExecutor is an Executor that also takes per-run options; the
// sandbox implements it. Executors without it run with their own settings.
type OptionsExecutor interface {
	Executor
	RunWith(ctx context.Context, program, tests string, o RunOptions) (Execution, error)
}

// RunWith runs program with options o when e takes per-run options, and
// with e's own settings otherwise.
func RunWith(ctx context.Context, e Executor, program, tests string, o RunOptions) (Execution, error) {
	if oe, ok := e.(OptionsExecutor); ok {
		return oe.RunWith(ctx, program, tests, o)
	}
	return e.Run(ctx, program, tests)
}

// CoverageUser is implemented by proposers that read per-test line coverage
// (the mutate proposer's fault localization). Programs that such a proposer
// may be asked about are run with coverage; the others are not.
type CoverageUser interface {
	UsesCoverage() bool
}

// usesCoverage reports whether p reads per-test coverage.
func usesCoverage(p Proposer) bool {
	c, ok := p.(CoverageUser)
	return ok && c.UsesCoverage()
}

// TimeLimits derive a task's time limit from its reference solution's run
// time: max(Floor, Factor × reference), at most Cap, so that a mutant stuck
// in a loop costs a fraction of a second rather than the cap. Fixed, when
// set, is the limit of every task instead.
type TimeLimits struct {
	Fixed  time.Duration `json:"fixed,omitempty"`
	Floor  time.Duration `json:"floor"`
	Factor float64       `json:"factor"`
	Cap    time.Duration `json:"cap"`
}

// Defaults of TimeLimits. A suite of the bundled tasks costs the sandbox
// about 17 ms of CPU (docs/results.md, "Sandbox"), so on an idle machine the floor
// rules: a passing run would have to slow down 15-fold to time out, and a
// loop costs a quarter of a second, about fifteen runs' worth. On a busy
// machine the reference's time grows with the load, and the factor with it.
const (
	DefaultTimeoutFloor  = 250 * time.Millisecond
	DefaultTimeoutFactor = 10
	DefaultTimeoutCap    = 10 * time.Second
)

// DefaultTimeLimits returns the adaptive limits users run by default.
func DefaultTimeLimits() TimeLimits {
	return TimeLimits{Floor: DefaultTimeoutFloor, Factor: DefaultTimeoutFactor, Cap: DefaultTimeoutCap}
}

// Validate checks the limits.
func (l TimeLimits) Validate() error {
	switch {
	case l.Fixed < 0:
		return fmt.Errorf("time limits: fixed limit %v < 0", l.Fixed)
	case l.Fixed > 0:
		return nil
	case l.Floor <= 0 || l.Cap <= 0:
		return fmt.Errorf("time limits: floor %v and cap %v must be > 0", l.Floor, l.Cap)
	case l.Floor > l.Cap:
		return fmt.Errorf("time limits: floor %v above cap %v", l.Floor, l.Cap)
	case !(l.Factor >= 1) || math.IsInf(l.Factor, 0):
		return fmt.Errorf("time limits: factor %v must be ≥ 1", l.Factor)
	}
	return nil
}

// Measure is the limit under which a reference is timed: the cap (or the
// fixed limit).
func (l TimeLimits) Measure() time.Duration {
	if l.Fixed > 0 {
		return l.Fixed
	}
	return l.Cap
}

// For returns the limit of a task whose reference ran in ref, rounded up to
// a whole millisecond.
func (l TimeLimits) For(ref time.Duration) time.Duration {
	if l.Fixed > 0 {
		return l.Fixed
	}
	d := time.Duration(math.Ceil(float64(ref) * l.Factor))
	d = max(d, l.Floor)
	d = min(d, l.Cap)
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// timeLimitsJSON is the manifest's form of TimeLimits: durations as text.
type timeLimitsJSON struct {
	Fixed  string  `json:"fixed,omitempty"`
	Floor  string  `json:"floor"`
	Factor float64 `json:"factor"`
	Cap    string  `json:"cap"`
}

// MarshalJSON writes durations as text ("500ms").
func (l TimeLimits) MarshalJSON() ([]byte, error) {
	j := timeLimitsJSON{Floor: l.Floor.String(), Factor: l.Factor, Cap: l.Cap.String()}
	if l.Fixed > 0 {
		j.Fixed = l.Fixed.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (l *TimeLimits) UnmarshalJSON(b []byte) error {
	var j timeLimitsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	parse := func(s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		return time.ParseDuration(s)
	}
	var err [3]error
	l.Fixed, err[0] = parse(j.Fixed)
	l.Floor, err[1] = parse(j.Floor)
	l.Cap, err[2] = parse(j.Cap)
	l.Factor = j.Factor
	return errors.Join(err[:]...)
}
