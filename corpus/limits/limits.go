package limits

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"triage/corpus"
)

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
	// ProgramServeFactor, when > 0, charges the part of the reference's
	// program CPU that is not its own code (the program process decoding
	// the tests' requests and encoding its answers: RefTime.ServeMS) at
	// this factor instead of Factor, where the reference's run counted its
	// own code (RefTime.OwnMS). That part is mostly the same few
	// milliseconds for every program of a task, so ten times it gives a
	// loop ten times the harness's cost. Zero: Factor for the whole, as
	// corpora built before it were.
	ProgramServeFactor float64 `json:"program_serve_factor,omitempty"`
}

// Defaults of TimeLimits on the CPU clock. The program's import and the
// test bodies of a bundled task's reference take a few milliseconds of CPU;
// pytest's collection and reports of the same run take ten to thirty times
// that (measured 2026-12-01; docs/results.md's git history). So the
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
	// more): docs/results.md, "CPU-time limits".
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
	// assert is not the program's): docs/results.md, "CPU-time limits".
	DefaultProgramHarnessFactor = 4
	// DefaultProgramServeFactor charges the program process's serving of
	// the tests' requests: three times the reference's, room for a program
	// whose failing tests send exceptions and their frames where the
	// reference sent values.
	DefaultProgramServeFactor = 3
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
		ProgramHarnessFactor: DefaultProgramHarnessFactor, ProgramServeFactor: DefaultProgramServeFactor}
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
	case (l.ProgramServeFactor != 0 && !(l.ProgramServeFactor >= 1)) || math.IsInf(l.ProgramServeFactor, 0):
		return fmt.Errorf("time limits: program serve factor %v must be 0 (the factor for all) or ≥ 1", l.ProgramServeFactor)
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
func (l TimeLimits) Measure() corpus.RunOptions {
	if l.Fixed > 0 {
		return l.Run(l.Fixed)
	}
	o := l.Run(l.Cap)
	o.SplitCPU = l.Split()
	return o
}

// Run returns the run options of a run under limit on l's clock: a CPU
// limit with its wall-clock backstop, or a wall-clock limit.
func (l TimeLimits) Run(limit time.Duration) corpus.RunOptions {
	if !l.CPU() || limit <= 0 {
		return corpus.RunOptions{Timeout: limit}
	}
	return corpus.RunOptions{Timeout: l.Backstop(limit), CPU: limit}
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
func (l TimeLimits) Reference(ex corpus.Execution) float64 {
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
	// OwnMS is the part of ProgramMS in the program's own code (its import
	// and the calls' bodies; Execution.ProgramOwnCPUMS), when the run
	// counted it; zero otherwise.
	OwnMS float64
}

// ServeMS is the rest of ProgramMS where OwnMS was counted: the program
// process decoding requests and encoding answers; zero otherwise.
func (r RefTime) ServeMS() float64 {
	if r.OwnMS <= 0 {
		return 0
	}
	return max(0, r.ProgramMS-r.OwnMS)
}

// HarnessMS is the rest of MS: pytest's collection, set-up and reports.
func (r RefTime) HarnessMS() float64 { return max(0, r.MS-r.ProgramMS) }

// Sample is what ex, a run of a reference under Measure(), counts.
func (l TimeLimits) Sample(ex corpus.Execution) RefTime {
	r := RefTime{MS: l.Reference(ex)}
	if l.Split() && ex.CPUMS > 0 {
		r.ProgramMS = min(ex.ProgramCPUMS, r.MS)
		r.OwnMS = min(max(ex.ProgramOwnCPUMS, 0), r.ProgramMS)
	}
	return r
}

// MedianRef is the median of each part of samples (at least one).
func MedianRef(samples []RefTime) RefTime {
	total := make([]float64, len(samples))
	prog := make([]float64, len(samples))
	own := make([]float64, len(samples))
	for i, s := range samples {
		total[i], prog[i], own[i] = s.MS, s.ProgramMS, s.OwnMS
	}
	sort.Float64s(total)
	sort.Float64s(prog)
	sort.Float64s(own)
	m := len(samples) / 2
	return RefTime{MS: total[m], ProgramMS: prog[m], OwnMS: min(own[m], prog[m])}
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
// CPU). With ProgramServeFactor and a reference that counted its own code,
// Factor × r.ProgramMS is Factor × r.OwnMS + ProgramServeFactor × r.ServeMS().
func (l TimeLimits) ProgramLimitOf(r RefTime) time.Duration {
	if l.Fixed > 0 || !l.Split() || l.ProgramFloor <= 0 {
		return 0
	}
	floor := l.ProgramFloor
	if l.ProgramHarnessFactor > 0 {
		floor = min(floor, time.Duration(math.Ceil(r.HarnessMS()*l.ProgramHarnessFactor*float64(time.Millisecond))))
	}
	prog := r.ProgramMS * l.Factor
	if l.ProgramServeFactor > 0 && r.OwnMS > 0 {
		prog = r.OwnMS*l.Factor + r.ServeMS()*l.ProgramServeFactor
	}
	d := max(floor, time.Duration(math.Ceil(prog*float64(time.Millisecond))))
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
	// Written only with a serve factor: a manifest without it (built
	// before) reads as 0, Factor for the reference's whole program CPU.
	ProgramServeFactor float64 `json:"program_serve_factor,omitempty"`
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
		j.ProgramServeFactor = l.ProgramServeFactor
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
	l.ProgramHarnessFactor, l.ProgramServeFactor = j.ProgramHarnessFactor, j.ProgramServeFactor
	return errors.Join(err[:]...)
}
