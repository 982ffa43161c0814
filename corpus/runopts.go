package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// RunOptions are the settings of one test-suite run that a caller may choose
// per run: the time limit, and whether to collect per-test line coverage
// (TestResult.Lines), which only a proposer that localizes faults reads and
// which slows a run down.
type RunOptions struct {
	// Timeout is the wall-clock limit; zero means the executor's own. With
	// CPU it is the backstop for programs that sleep or block.
	Timeout time.Duration
	// CPU, when > 0, limits the CPU time of the run from the start of
	// collection on: the program's import, collection, the tests and their
	// reports (Execution.CPUMS); executors that cannot measure it run under
	// Timeout alone.
	CPU time.Duration
	// ProgramCPU, when > 0 and below CPU, is the program's own budget within
	// CPU: the CPU of its import and of every call into it
	// (Execution.ProgramCPUMS), so that a loop ends at a few times the
	// program's need instead of at CPU, most of which is pytest's allowance.
	// The sandbox reads it from outside the run (the program's own process,
	// search/sandbox/README.md); the budget only ever ends a run sooner: CPU
	// still holds.
	ProgramCPU time.Duration
	// Coverage asks for TestResult.Lines.
	Coverage bool
	// SplitCPU asks for Execution.ProgramCPUMS, the program's share of
	// CPUMS, for runs of a trusted reference (the floors of ProgramCPU are
	// made from it); limits are always enforced on the whole count.
	SplitCPU bool
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

// Clocks a TimeLimits can count.
const (
	// ClockCPU limits the CPU time of the run from the start of collection
	// (Execution.CPUMS), with a wall-clock backstop for programs that sleep
	// or block: verdicts do not depend on what else the machine runs.
	ClockCPU = "cpu"
	// ClockWall limits the wall-clock time of the whole run
	// (Execution.DurationMS), as corpora built before CPU limits did.
	ClockWall = "wall"
)

// TimeLimits derive a task's time limit from its reference solution's run
// time, on Clock, so that a mutant stuck in a loop costs a fraction of a
// second rather than the cap. Fixed, when set, is the limit of every task
// instead. An empty Clock is ClockWall (manifests written before CPU limits
// have none).
//
// On the CPU clock with HarnessFactor > 0 the limit charges the program,
// not the harness: max(Floor, Factor × the reference's program CPU (its
// import and test bodies) + max(HarnessFloor, HarnessFactor × the rest of
// its counted CPU, pytest's collection and reports)), at most Cap. Without
// (HarnessFactor 0, and on the wall clock) it is max(Floor, Factor × the
// reference's whole counted time), at most Cap, as corpora built before the
// split were.
type TimeLimits struct {
	Clock  string        `json:"clock"`
	Fixed  time.Duration `json:"fixed,omitempty"`
	Floor  time.Duration `json:"floor"`
	Factor float64       `json:"factor"`
	Cap    time.Duration `json:"cap"`
	// HarnessFactor and HarnessFloor give the harness's allowance (CPU
	// clock only; HarnessFactor 0: no split).
	HarnessFactor float64       `json:"harness_factor,omitempty"`
	HarnessFloor  time.Duration `json:"harness_floor,omitempty"`
	// WallFloor and WallFactor give a CPU-limited run its wall-clock
	// backstop, max(WallFloor, WallFactor × limit) (zero: the defaults).
	// Unused with ClockWall.
	WallFloor  time.Duration `json:"wall_floor,omitempty"`
	WallFactor float64       `json:"wall_factor,omitempty"`
	// ProgramFloor, when > 0 (Split limits only), gives every run a budget
	// for the program's own code within its limit (RunOptions.ProgramCPU):
	// max(ProgramFloor, Factor × the reference's program CPU), when that is
	// below the limit (ProgramLimitOf).
	ProgramFloor time.Duration `json:"program_floor,omitempty"`
	// ProgramHarnessFactor, when > 0, scales that floor to the machine:
	// it is then min(ProgramFloor, ProgramHarnessFactor × the reference's
	// harness CPU), pytest's own part of the reference's run, which
	// measures how fast this machine runs a suite. Zero: ProgramFloor
	// itself, as corpora built before it were.
	ProgramHarnessFactor float64 `json:"program_harness_factor,omitempty"`
}

// Defaults of TimeLimits on the CPU clock. The program's import and the
// test bodies of a bundled task's reference take a few milliseconds of CPU;
// pytest's collection and reports of the same run take ten to thirty times
// that (docs/results.md, "Sandbox: CPU-time limits and cost"). So the
// program gets ten times its own CPU and the harness six times its own, at
// least 300 ms. The honest paths that cost pytest more than the
// reference's run must fit: a run whose every test fails with a traceback
// costs up to twice the reference's whole count (measured on bundled
// tasks), and a program that does not compile, whose collection error
// pytest renders with its source, up to 3.5 times the reference's harness
// CPU under a CPU hog (a tiny task: 151–208 ms against 56–75 ms). Three
// times, the first choice, let that error path time out in 4 of 30 checks
// under a hog, and `tasks validate` then took a root that does not load
// for a valid one. A loop costs about six of the reference's runs.
const (
	DefaultCPUFloor      = 50 * time.Millisecond
	DefaultCPUFactor     = 10
	DefaultCPUCap        = 10 * time.Second
	DefaultHarnessFactor = 6
	DefaultHarnessFloor  = 300 * time.Millisecond
	DefaultWallFloor     = 2 * time.Second
	DefaultWallFactor    = 10
	// DefaultProgramFloor is the least budget of the program's own code in
	// a run (its import and test bodies), beside the whole limit above: the
	// program part of a bundled or MBPP reference counts 2–16 ms, so the
	// floor rules for most tasks and leaves an honest program tens of times
	// its reference's need, however loaded the machine, while a loop ends
	// after the floor instead of after pytest's allowance too (300 ms and
	// more): docs/results.md, "A budget for the program's own code".
	DefaultProgramFloor = 150 * time.Millisecond
	// DefaultProgramHarnessFactor scales the program's floor to the
	// machine: at most DefaultProgramFloor, and otherwise four times the
	// reference's harness CPU. Machines differ fifteenfold in what a suite
	// costs (a bundled reference's pytest part: 97–173 ms on the slow
	// development VM, 5–10 ms on a faster one), and a fixed 150 ms floor
	// let a loop cost twenty honest runs on the fast one, a third of its
	// run time. There, the costliest honest programs used 0.40 and 0.52 of
	// this budget (1,354 programs of bundled shard 3/28, 3,653 of 64 MBPP
	// tasks, every test failing included; pytest's explanation of a failing
	// assert is not the program's): docs/results.md, "A program budget that
	// follows the machine".
	DefaultProgramHarnessFactor = 4
)

// Defaults of TimeLimits on the wall clock (ClockWall). A suite of the
// bundled tasks costs the sandbox about 17 ms of CPU (docs/results.md, "Sandbox"), so
// on an idle machine the floor rules. On a busy machine the reference's
// time grows with the load, and the factor with it.
const (
	DefaultTimeoutFloor  = 250 * time.Millisecond
	DefaultTimeoutFactor = 10
	DefaultTimeoutCap    = 10 * time.Second
)

// DefaultTimeLimits returns the adaptive CPU-time limits users run by default.
func DefaultTimeLimits() TimeLimits {
	return TimeLimits{Clock: ClockCPU, Floor: DefaultCPUFloor, Factor: DefaultCPUFactor, Cap: DefaultCPUCap,
		HarnessFactor: DefaultHarnessFactor, HarnessFloor: DefaultHarnessFloor,
		WallFloor: DefaultWallFloor, WallFactor: DefaultWallFactor, ProgramFloor: DefaultProgramFloor,
		ProgramHarnessFactor: DefaultProgramHarnessFactor}
}

// DefaultWallTimeLimits returns the adaptive wall-clock limits of corpora
// built before CPU limits.
func DefaultWallTimeLimits() TimeLimits {
	return TimeLimits{Clock: ClockWall, Floor: DefaultTimeoutFloor, Factor: DefaultTimeoutFactor, Cap: DefaultTimeoutCap}
}

// CPU reports whether the limits count CPU time.
func (l TimeLimits) CPU() bool { return l.Clock == ClockCPU }

// Split reports whether the limits charge the reference's program and
// harness CPU apart (HarnessFactor > 0 on the CPU clock).
func (l TimeLimits) Split() bool { return l.CPU() && l.HarnessFactor > 0 }

// Validate checks the limits.
func (l TimeLimits) Validate() error {
	switch {
	case l.Clock != ClockCPU && l.Clock != ClockWall && l.Clock != "":
		return fmt.Errorf("time limits: clock %q: want %s or %s", l.Clock, ClockCPU, ClockWall)
	case l.WallFloor < 0:
		return fmt.Errorf("time limits: wall-clock backstop floor %v < 0", l.WallFloor)
	case (l.WallFactor != 0 && !(l.WallFactor >= 1)) || math.IsInf(l.WallFactor, 0):
		return fmt.Errorf("time limits: wall-clock backstop factor %v must be ≥ 1", l.WallFactor)
	case (l.HarnessFactor != 0 && !(l.HarnessFactor >= 1)) || math.IsInf(l.HarnessFactor, 0):
		return fmt.Errorf("time limits: harness factor %v must be 0 (no split) or ≥ 1", l.HarnessFactor)
	case l.HarnessFloor < 0:
		return fmt.Errorf("time limits: harness floor %v < 0", l.HarnessFloor)
	case (l.HarnessFactor != 0 || l.HarnessFloor != 0) && !l.CPU():
		return fmt.Errorf("time limits: a harness factor or floor needs the %s clock", ClockCPU)
	case l.HarnessFloor != 0 && l.HarnessFactor == 0:
		return fmt.Errorf("time limits: harness floor %v without a harness factor", l.HarnessFloor)
	case l.ProgramFloor < 0:
		return fmt.Errorf("time limits: program floor %v < 0", l.ProgramFloor)
	case l.ProgramFloor != 0 && !l.Split():
		return fmt.Errorf("time limits: a program floor needs the %s clock with a harness factor (split limits)", ClockCPU)
	case l.ProgramHarnessFactor < 0 || math.IsNaN(l.ProgramHarnessFactor) || math.IsInf(l.ProgramHarnessFactor, 0):
		return fmt.Errorf("time limits: program floor's harness factor %v must be 0 (a fixed floor) or > 0", l.ProgramHarnessFactor)
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

// Measure are the run options under which a reference is timed: the cap
// (or the fixed limit), with its CPU split when the limits use it.
func (l TimeLimits) Measure() RunOptions {
	if l.Fixed > 0 {
		return l.Run(l.Fixed)
	}
	o := l.Run(l.Cap)
	o.SplitCPU = l.Split()
	return o
}

// Run returns the run options of a run under limit on l's clock: a CPU
// limit with its wall-clock backstop, or a wall-clock limit.
func (l TimeLimits) Run(limit time.Duration) RunOptions {
	if !l.CPU() || limit <= 0 {
		return RunOptions{Timeout: limit}
	}
	return RunOptions{Timeout: l.Backstop(limit), CPU: limit}
}

// Backstop is the wall-clock limit of a run under CPU limit limit:
// max(WallFloor, WallFactor × limit), rounded up to a millisecond.
func (l TimeLimits) Backstop(limit time.Duration) time.Duration {
	floor, factor := l.WallFloor, l.WallFactor
	if floor == 0 {
		floor = DefaultWallFloor
	}
	if factor == 0 {
		factor = DefaultWallFactor
	}
	d := max(floor, time.Duration(math.Ceil(float64(limit)*factor)))
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// Reference is the time of ex that the limits count, in milliseconds: its
// CPU time on the CPU clock (its wall time when the executor does not
// measure CPU), its wall time otherwise.
func (l TimeLimits) Reference(ex Execution) float64 {
	if l.CPU() && ex.CPUMS > 0 {
		return ex.CPUMS
	}
	return ex.DurationMS
}

// RefTime is what a reference's run counts toward its task's limit, in
// milliseconds.
type RefTime struct {
	// MS is the run's time on the limits' clock (TimeLimits.Reference).
	MS float64
	// ProgramMS is the part of MS spent in the program's import and the
	// test bodies, when the run measured it (Split limits); zero otherwise.
	ProgramMS float64
}

// HarnessMS is the rest of MS: pytest's collection, set-up and reports.
func (r RefTime) HarnessMS() float64 { return max(0, r.MS-r.ProgramMS) }

// Sample is what ex, a run of a reference under Measure(), counts.
func (l TimeLimits) Sample(ex Execution) RefTime {
	r := RefTime{MS: l.Reference(ex)}
	if l.Split() && ex.CPUMS > 0 {
		r.ProgramMS = min(ex.ProgramCPUMS, r.MS)
	}
	return r
}

// MedianRef is the median of each part of samples (at least one).
func MedianRef(samples []RefTime) RefTime {
	total := make([]float64, len(samples))
	prog := make([]float64, len(samples))
	for i, s := range samples {
		total[i], prog[i] = s.MS, s.ProgramMS
	}
	sort.Float64s(total)
	sort.Float64s(prog)
	return RefTime{MS: total[len(total)/2], ProgramMS: prog[len(prog)/2]}
}

// For returns the limit of a task whose reference ran in ref (its whole
// counted time), rounded up to a whole millisecond.
func (l TimeLimits) For(ref time.Duration) time.Duration {
	return l.LimitOf(RefTime{MS: float64(ref) / float64(time.Millisecond)})
}

// LimitOf returns the limit of a task whose reference counted r, rounded
// up to a whole millisecond. With Split limits it charges the program and
// the harness apart (a reference whose executor did not split its CPU
// counts as all harness).
func (l TimeLimits) LimitOf(r RefTime) time.Duration {
	if l.Fixed > 0 {
		return l.Fixed
	}
	ms := func(x float64) time.Duration { return time.Duration(math.Ceil(x * float64(time.Millisecond))) }
	d := ms(r.MS * l.Factor)
	if l.Split() {
		d = ms(r.ProgramMS*l.Factor) + max(l.HarnessFloor, ms(r.HarnessMS()*l.HarnessFactor))
	}
	d = max(d, l.Floor)
	d = min(d, l.Cap)
	return (d + time.Millisecond - 1).Truncate(time.Millisecond)
}

// ProgramLimitOf returns the budget of the program's own code (its import
// and test bodies) in a run of a task whose reference counted r:
// max(the program floor, Factor × r.ProgramMS), rounded up to a millisecond;
// zero (none) without ProgramFloor, with a Fixed limit, or when it would not
// be below the task's limit. The program floor is ProgramFloor, or with
// ProgramHarnessFactor min(ProgramFloor, ProgramHarnessFactor × r's harness
// CPU).
func (l TimeLimits) ProgramLimitOf(r RefTime) time.Duration {
	if l.Fixed > 0 || !l.Split() || l.ProgramFloor <= 0 {
		return 0
	}
	floor := l.ProgramFloor
	if l.ProgramHarnessFactor > 0 {
		floor = min(floor, time.Duration(math.Ceil(r.HarnessMS()*l.ProgramHarnessFactor*float64(time.Millisecond))))
	}
	d := max(floor, time.Duration(math.Ceil(r.ProgramMS*l.Factor*float64(time.Millisecond))))
	d = (d + time.Millisecond - 1).Truncate(time.Millisecond)
	if d >= l.LimitOf(r) {
		return 0
	}
	return d
}

// timeLimitsJSON is the manifest's form of TimeLimits: durations as text.
type timeLimitsJSON struct {
	Clock      string  `json:"clock,omitempty"`
	Fixed      string  `json:"fixed,omitempty"`
	Floor      string  `json:"floor"`
	Factor     float64 `json:"factor"`
	Cap        string  `json:"cap"`
	WallFloor  string  `json:"wall_floor,omitempty"`
	WallFactor float64 `json:"wall_factor,omitempty"`
	// Written only for split limits: a manifest without them (built before
	// the split) reads as HarnessFactor 0, the whole count times Factor.
	HarnessFactor float64 `json:"harness_factor,omitempty"`
	HarnessFloor  string  `json:"harness_floor,omitempty"`
	// Written only with a program budget: a manifest without it (built
	// before the budget) reads as none.
	ProgramFloor string `json:"program_floor,omitempty"`
	// Written only with a floor that follows the machine: a manifest
	// without it (built before) reads as 0, the fixed floor.
	ProgramHarnessFactor float64 `json:"program_harness_factor,omitempty"`
}

// MarshalJSON writes durations as text ("500ms") and the clock always
// (an empty one as "wall").
func (l TimeLimits) MarshalJSON() ([]byte, error) {
	j := timeLimitsJSON{Clock: l.Clock, Floor: l.Floor.String(), Factor: l.Factor, Cap: l.Cap.String()}
	if j.Clock == "" {
		j.Clock = ClockWall
	}
	if l.Fixed > 0 {
		j.Fixed = l.Fixed.String()
	}
	if l.CPU() {
		j.WallFloor, j.WallFactor = l.Backstop(0).String(), l.WallFactor
		if j.WallFactor == 0 {
			j.WallFactor = DefaultWallFactor
		}
	}
	if l.Split() {
		j.HarnessFactor, j.HarnessFloor = l.HarnessFactor, l.HarnessFloor.String()
	}
	if l.ProgramFloor > 0 {
		j.ProgramFloor = l.ProgramFloor.String()
		j.ProgramHarnessFactor = l.ProgramHarnessFactor
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; limits without a clock (a
// manifest written before CPU limits) are on the wall clock.
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
	var err [6]error
	l.Clock = j.Clock
	if l.Clock == "" {
		l.Clock = ClockWall
	}
	l.Fixed, err[0] = parse(j.Fixed)
	l.Floor, err[1] = parse(j.Floor)
	l.Cap, err[2] = parse(j.Cap)
	l.WallFloor, err[3] = parse(j.WallFloor)
	l.HarnessFloor, err[4] = parse(j.HarnessFloor)
	l.ProgramFloor, err[5] = parse(j.ProgramFloor)
	l.Factor, l.WallFactor, l.HarnessFactor = j.Factor, j.WallFactor, j.HarnessFactor
	l.ProgramHarnessFactor = j.ProgramHarnessFactor
	return errors.Join(err[:]...)
}

// TimeLimitsHelp explains TimeLimits and their flags to a user (the long
// help of corpus build, search and tasks validate): kept beside the rule it
// describes, so the two change together.
const TimeLimitsHelp = `Time limits are on CPU time by default (--test-timeout-clock cpu). A run is
charged the CPU time of its process (every thread, and the processes it
waited for) from the moment pytest starts to collect the test file: the
program's import, collection, the tests, and pytest's reports of them, not
the sandbox's own set-up of the run. The sandbox worker counts and enforces
it from outside the program, so a verdict does not depend on what else the
machine runs. A task's adaptive limit charges the program apart from
pytest: --test-timeout-factor × the CPU of the reference's import and test
bodies, plus max(--test-timeout-harness-floor, --test-timeout-harness-factor
× the rest of the reference's count), within --test-timeout-floor and
--test-timeout-cap (the split is measured on the reference's runs only;
--test-timeout-harness-factor 0 charges the factor on the whole count, as
corpora built before the split did). Within that limit the program's own
code (its import and the test bodies) has a budget of its own,
max(F, --test-timeout-factor × the reference's import and test bodies),
where the floor F = min(--test-timeout-program-floor,
--test-timeout-program-harness-factor × the rest of the reference's count)
follows the machine's speed (harness factor 0: F is the program floor), so
a loop ends there rather than after pytest's allowance too
(--test-timeout-program-floor 0: no such budget; the harness
inside the run reports that count, so it can only end a run sooner, and the
whole limit is still counted from outside). A run that sleeps or blocks ends at a
wall-clock backstop, max(--test-timeout-wall-floor,
--test-timeout-wall-factor × its limit). --test-timeout-clock wall limits
the run's wall-clock time instead (--test-timeout-factor × the reference's
wall time), as corpora built before CPU limits did.`

// LimitFlags are the values of the time-limit flags (corpus build, search,
// tasks validate); Limits turns them into TimeLimits.
type LimitFlags struct {
	Clock                 string // --test-timeout-clock: cpu or wall
	Fixed                 time.Duration
	Floor, Cap, WallFloor time.Duration
	Factor, WallFactor    float64
	// HarnessFactor and HarnessFloor: pytest's allowance (CPU clock).
	HarnessFactor float64
	HarnessFloor  time.Duration
	// ProgramFloor: the least budget of the program's own code (CPU clock);
	// ProgramHarnessFactor scales it to the machine.
	ProgramFloor         time.Duration
	ProgramHarnessFactor float64
	// Adaptive says the command has the adaptive flags (floor, factor,
	// cap and the wall-clock backstop's); without them the defaults
	// hold. Changed reports whether a flag was given.
	Adaptive bool
	Changed  func(flag string) bool
}

// Limits checks the flags and returns the limits they give (bad input on
// a bad value). On the CPU clock every adaptive flag counts (its default
// is the CPU default); on the wall clock only the flags given do, so the
// wall-clock defaults hold.
func (f LimitFlags) Limits() (TimeLimits, error) {
	if f.Fixed < 0 {
		return TimeLimits{}, BadInput("--test-timeout %v: want a positive limit, or 0 for adaptive limits", f.Fixed)
	}
	var l TimeLimits
	switch f.Clock {
	case ClockCPU:
		l = DefaultTimeLimits()
	case ClockWall:
		l = DefaultWallTimeLimits()
	default:
		return l, BadInput("--test-timeout-clock %q: want cpu or wall", f.Clock)
	}
	set := func(name string, apply func()) {
		if f.Adaptive && (f.Changed(name) || f.Clock == ClockCPU) {
			apply()
		}
	}
	set("test-timeout-floor", func() { l.Floor = f.Floor })
	set("test-timeout-factor", func() { l.Factor = f.Factor })
	set("test-timeout-cap", func() { l.Cap = f.Cap })
	if l.CPU() {
		set("test-timeout-wall-floor", func() { l.WallFloor = f.WallFloor })
		set("test-timeout-wall-factor", func() { l.WallFactor = f.WallFactor })
		set("test-timeout-harness-factor", func() { l.HarnessFactor = f.HarnessFactor })
		set("test-timeout-harness-floor", func() { l.HarnessFloor = f.HarnessFloor })
		set("test-timeout-program-floor", func() { l.ProgramFloor = f.ProgramFloor })
		set("test-timeout-program-harness-factor", func() { l.ProgramHarnessFactor = f.ProgramHarnessFactor })
		if l.HarnessFactor == 0 && !f.Changed("test-timeout-harness-floor") {
			l.HarnessFloor = 0 // no split: no allowance either
		}
		if l.HarnessFactor == 0 && !f.Changed("test-timeout-program-floor") {
			l.ProgramFloor = 0 // no split: no program part to budget
		}
		if l.ProgramFloor == 0 && !f.Changed("test-timeout-program-harness-factor") {
			l.ProgramHarnessFactor = 0 // no budget: nothing to scale
		}
	} else {
		for _, name := range []string{"test-timeout-wall-floor", "test-timeout-wall-factor", "test-timeout-harness-factor", "test-timeout-harness-floor", "test-timeout-program-floor", "test-timeout-program-harness-factor"} {
			if f.Changed(name) {
				return l, BadInput("--%s: only with --test-timeout-clock cpu", name)
			}
		}
	}
	l.Fixed = f.Fixed
	if err := l.Validate(); err != nil {
		return l, BadInput("--test-timeout-floor/-factor/-cap/-harness-factor/-harness-floor/-program-floor/-program-harness-factor/-wall-floor/-wall-factor: %v", err)
	}
	return l, nil
}
