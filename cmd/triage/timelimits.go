package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"triage/corpus"
)

// timeLimitFlags are the flags that set per-task time limits, shared by
// corpus build, search and tasks validate.
type timeLimitFlags struct {
	clock      string
	fixed      time.Duration
	floor      time.Duration
	factor     float64
	limitCap   time.Duration
	wallFloor  time.Duration
	wallFactor float64
	harnFactor float64
	harnFloor  time.Duration
	fl         *pflag.FlagSet // where they were registered, to tell set flags from defaults
}

// timeLimitsHelp explains the limits in a command's long help.
const timeLimitsHelp = `Time limits are on CPU time by default (--test-timeout-clock cpu). A run is
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
corpora built before the split did). A run that sleeps or blocks ends at a
wall-clock backstop, max(--test-timeout-wall-floor,
--test-timeout-wall-factor × its limit). --test-timeout-clock wall limits
the run's wall-clock time instead (--test-timeout-factor × the reference's
wall time), as corpora built before CPU limits did.`

// register adds the flags to fl; adaptive adds the floor, factor, cap and
// backstop flags too (corpus build), where the others take the defaults.
func (f *timeLimitFlags) register(fl *pflag.FlagSet, adaptive bool) {
	f.fl = fl
	fl.StringVar(&f.clock, "test-timeout-clock", corpus.ClockCPU, "what time limits count: cpu (the run's CPU time from the start of collection: the program's import, collection, the tests and pytest's reports) or wall (wall-clock time of the run)")
	fl.DurationVar(&f.fixed, "test-timeout", 0, "one fixed limit per test-suite run for every task, on --test-timeout-clock (0: adaptive, from each task's reference)")
	if !adaptive {
		return
	}
	fl.DurationVar(&f.floor, "test-timeout-floor", corpus.DefaultCPUFloor, fmt.Sprintf("adaptive limit: the least limit of a task (with --test-timeout-clock wall the default is %v)", corpus.DefaultTimeoutFloor))
	fl.Float64Var(&f.factor, "test-timeout-factor", corpus.DefaultCPUFactor, "adaptive limit: this many times the CPU of the reference's import and test bodies (median run; the whole count with --test-timeout-harness-factor 0, the wall time with --test-timeout-clock wall)")
	fl.DurationVar(&f.limitCap, "test-timeout-cap", corpus.DefaultCPUCap, "adaptive limit: the largest limit of a task (and the limit of the reference runs)")
	fl.Float64Var(&f.harnFactor, "test-timeout-harness-factor", corpus.DefaultHarnessFactor, "CPU limits: pytest's allowance is this many times the reference's CPU outside its import and test bodies (collection, reports); 0: no split, --test-timeout-factor × the whole count")
	fl.DurationVar(&f.harnFloor, "test-timeout-harness-floor", corpus.DefaultHarnessFloor, "CPU limits: the least allowance for pytest's collection and reports of a run")
	fl.DurationVar(&f.wallFloor, "test-timeout-wall-floor", corpus.DefaultWallFloor, "CPU limits: the least wall-clock backstop of a run")
	fl.Float64Var(&f.wallFactor, "test-timeout-wall-factor", corpus.DefaultWallFactor, "CPU limits: the wall-clock backstop is this many times the run's CPU limit (≥ 1)")
}

// limits checks the flags and returns the limits they give (exit 2 errors).
func (f *timeLimitFlags) limits() (corpus.TimeLimits, error) {
	fl := f.fl
	if f.fixed < 0 {
		return corpus.TimeLimits{}, badInput("--test-timeout %v: want a positive limit, or 0 for adaptive limits", f.fixed)
	}
	var l corpus.TimeLimits
	switch f.clock {
	case corpus.ClockCPU:
		l = corpus.DefaultTimeLimits()
	case corpus.ClockWall:
		l = corpus.DefaultWallTimeLimits()
	default:
		return l, badInput("--test-timeout-clock %q: want cpu or wall", f.clock)
	}
	set := func(name string, apply func()) {
		if fl.Lookup(name) != nil && (fl.Changed(name) || f.clock == corpus.ClockCPU) {
			apply()
		}
	}
	set("test-timeout-floor", func() { l.Floor = f.floor })
	set("test-timeout-factor", func() { l.Factor = f.factor })
	set("test-timeout-cap", func() { l.Cap = f.limitCap })
	cpuOnly := []string{"test-timeout-wall-floor", "test-timeout-wall-factor", "test-timeout-harness-factor", "test-timeout-harness-floor"}
	if l.CPU() {
		set("test-timeout-wall-floor", func() { l.WallFloor = f.wallFloor })
		set("test-timeout-wall-factor", func() { l.WallFactor = f.wallFactor })
		set("test-timeout-harness-factor", func() { l.HarnessFactor = f.harnFactor })
		set("test-timeout-harness-floor", func() { l.HarnessFloor = f.harnFloor })
		if l.HarnessFactor == 0 && !fl.Changed("test-timeout-harness-floor") {
			l.HarnessFloor = 0 // no split: no allowance either
		}
	} else {
		for _, name := range cpuOnly {
			if fl.Changed(name) {
				return l, badInput("--%s: only with --test-timeout-clock cpu", name)
			}
		}
	}
	l.Fixed = f.fixed
	if err := l.Validate(); err != nil {
		return l, badInput("--test-timeout-floor/-factor/-cap/-harness-factor/-harness-floor/-wall-floor/-wall-factor: %v", err)
	}
	return l, nil
}
