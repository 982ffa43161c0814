package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"triage/corpus/limits"
)

// timeLimitsHelp explains limits.TimeLimits and their flags in the long
// help of corpus build, search and tasks validate.
const timeLimitsHelp = `Time limits are on CPU time by default (--test-timeout-clock cpu). A run is
charged the CPU time of its two processes, the tests' and the program's
(every thread, and the processes they waited for), from the moment each is
set up and pytest starts to collect the test file: the
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
(--test-timeout-program-floor 0: no such budget). The budget counts the
CPU of the program's own process, read from outside it like the whole
limit. Where the reference's run counted its own code apart from its
process's serving of the tests' requests, that serving is charged at
--test-timeout-program-serve-factor instead of --test-timeout-factor: it is
mostly the same few milliseconds for every program of a task (0:
--test-timeout-factor for both, as corpora built before it were). A run
that sleeps or blocks ends at a
wall-clock backstop, max(--test-timeout-wall-floor,
--test-timeout-wall-factor × its limit). --test-timeout-clock wall limits
the run's wall-clock time instead (--test-timeout-factor × the reference's
wall time), as corpora built before CPU limits did.`

// timeLimitFlags are the values of the flags that set per-task time limits
// (corpus build, search, tasks validate); limits turns them into
// limits.TimeLimits.
type timeLimitFlags struct {
	clock                 string // --test-timeout-clock: cpu or wall
	fixed                 time.Duration
	floor, cap, wallFloor time.Duration
	factor, wallFactor    float64
	// harnessFactor and harnessFloor: pytest's allowance (CPU clock).
	harnessFactor float64
	harnessFloor  time.Duration
	// programFloor: the least budget of the program's own code (CPU clock);
	// programHarnessFactor scales it to the machine.
	programFloor         time.Duration
	programHarnessFactor float64
	// programServeFactor charges the reference program process's serving.
	programServeFactor float64
	// adaptive says the command has the adaptive flags (floor, factor,
	// cap and the wall-clock backstop's); without them the defaults
	// hold. changed reports whether a flag was given.
	adaptive bool
	changed  func(flag string) bool
}

// register adds the flags to fl; adaptive adds the floor, factor, cap and
// backstop flags too (corpus build), where the others take the defaults.
func (f *timeLimitFlags) register(fl *pflag.FlagSet, adaptive bool) {
	f.adaptive, f.changed = adaptive, fl.Changed
	fl.StringVar(&f.clock, "test-timeout-clock", limits.ClockCPU, "what time limits count: cpu (the run's CPU time from the start of collection: the program's import, collection, the tests and pytest's reports) or wall (wall-clock time of the run)")
	fl.DurationVar(&f.fixed, "test-timeout", 0, "one fixed limit per test-suite run for every task, on --test-timeout-clock (0: adaptive, from each task's reference)")
	if !adaptive {
		return
	}
	fl.DurationVar(&f.floor, "test-timeout-floor", limits.DefaultCPUFloor, fmt.Sprintf("adaptive limit: the least limit of a task (with --test-timeout-clock wall the default is %v)", limits.DefaultTimeoutFloor))
	fl.Float64Var(&f.factor, "test-timeout-factor", limits.DefaultCPUFactor, "adaptive limit: this many times the CPU of the reference's import and test bodies (median run; the whole count with --test-timeout-harness-factor 0, the wall time with --test-timeout-clock wall)")
	fl.DurationVar(&f.cap, "test-timeout-cap", limits.DefaultCPUCap, "adaptive limit: the largest limit of a task (and the limit of the reference runs)")
	fl.Float64Var(&f.harnessFactor, "test-timeout-harness-factor", limits.DefaultHarnessFactor, "CPU limits: pytest's allowance is this many times the reference's CPU outside its import and test bodies (collection, reports); 0: no split, --test-timeout-factor × the whole count")
	fl.DurationVar(&f.harnessFloor, "test-timeout-harness-floor", limits.DefaultHarnessFloor, "CPU limits: the least allowance for pytest's collection and reports of a run")
	fl.DurationVar(&f.programFloor, "test-timeout-program-floor", limits.DefaultProgramFloor, "CPU limits: the least budget of the program's own code in a run (its import and test bodies: --test-timeout-factor × the reference's), within the run's limit; a loop ends there (0: no such budget)")
	fl.Float64Var(&f.programHarnessFactor, "test-timeout-program-harness-factor", limits.DefaultProgramHarnessFactor, "CPU limits: scale the program's floor to the machine: min(--test-timeout-program-floor, this many times the reference's CPU outside its import and test bodies) (0: the fixed floor)")
	fl.Float64Var(&f.programServeFactor, "test-timeout-program-serve-factor", limits.DefaultProgramServeFactor, "CPU limits: in the program's budget, charge the reference's program process serving the tests' requests (decoding them, encoding its answers) at this factor and only its own code at --test-timeout-factor (0: --test-timeout-factor for both; ≥ 1 otherwise)")
	fl.DurationVar(&f.wallFloor, "test-timeout-wall-floor", limits.DefaultWallFloor, "CPU limits: the least wall-clock backstop of a run")
	fl.Float64Var(&f.wallFactor, "test-timeout-wall-factor", limits.DefaultWallFactor, "CPU limits: the wall-clock backstop is this many times the run's CPU limit (≥ 1)")
}

// limits checks the flags and returns the limits they give (bad input on
// a bad value). On the CPU clock every adaptive flag counts (its default
// is the CPU default); on the wall clock only the flags given do, so the
// wall-clock defaults hold.
func (f timeLimitFlags) limits() (limits.TimeLimits, error) {
	if f.fixed < 0 {
		return limits.TimeLimits{}, badInput("--test-timeout %v: want a positive limit, or 0 for adaptive limits", f.fixed)
	}
	var l limits.TimeLimits
	switch f.clock {
	case limits.ClockCPU:
		l = limits.DefaultTimeLimits()
	case limits.ClockWall:
		l = limits.DefaultWallTimeLimits()
	default:
		return l, badInput("--test-timeout-clock %q: want cpu or wall", f.clock)
	}
	set := func(name string, apply func()) {
		if f.adaptive && (f.changed(name) || f.clock == limits.ClockCPU) {
			apply()
		}
	}
	set("test-timeout-floor", func() { l.Floor = f.floor })
	set("test-timeout-factor", func() { l.Factor = f.factor })
	set("test-timeout-cap", func() { l.Cap = f.cap })
	if l.CPU() {
		set("test-timeout-wall-floor", func() { l.WallFloor = f.wallFloor })
		set("test-timeout-wall-factor", func() { l.WallFactor = f.wallFactor })
		set("test-timeout-harness-factor", func() { l.HarnessFactor = f.harnessFactor })
		set("test-timeout-harness-floor", func() { l.HarnessFloor = f.harnessFloor })
		set("test-timeout-program-floor", func() { l.ProgramFloor = f.programFloor })
		set("test-timeout-program-harness-factor", func() { l.ProgramHarnessFactor = f.programHarnessFactor })
		set("test-timeout-program-serve-factor", func() { l.ProgramServeFactor = f.programServeFactor })
		if l.HarnessFactor == 0 && !f.changed("test-timeout-harness-floor") {
			l.HarnessFloor = 0 // no split: no allowance either
		}
		if l.HarnessFactor == 0 && !f.changed("test-timeout-program-floor") {
			l.ProgramFloor = 0 // no split: no program part to budget
		}
		if l.ProgramFloor == 0 && !f.changed("test-timeout-program-harness-factor") {
			l.ProgramHarnessFactor = 0 // no budget: nothing to scale
		}
		if l.ProgramFloor == 0 && !f.changed("test-timeout-program-serve-factor") {
			l.ProgramServeFactor = 0 // no budget: nothing to charge apart
		}
	} else {
		for _, name := range []string{"test-timeout-wall-floor", "test-timeout-wall-factor", "test-timeout-harness-factor", "test-timeout-harness-floor", "test-timeout-program-floor", "test-timeout-program-harness-factor", "test-timeout-program-serve-factor"} {
			if f.changed(name) {
				return l, badInput("--%s: only with --test-timeout-clock cpu", name)
			}
		}
	}
	l.Fixed = f.fixed
	if err := l.Validate(); err != nil {
		return l, badInput("--test-timeout-floor/-factor/-cap/-harness-factor/-harness-floor/-program-floor/-program-harness-factor/-program-serve-factor/-wall-floor/-wall-factor: %v", err)
	}
	return l, nil
}
