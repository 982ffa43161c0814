package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"triage/corpus"
)

// timeLimitFlags are the flags that set per-task time limits, shared by
// corpus build, search and tasks validate.
type timeLimitFlags struct{ corpus.LimitFlags }

// timeLimitsHelp explains the limits in a command's long help.
const timeLimitsHelp = `Time limits are on CPU time by default (--test-timeout-clock cpu): the
CPU time of the program's import and the tests (every thread of the run, and
the processes it waited for), counted and enforced by the sandbox worker from
outside the program, so a verdict does not depend on what else the machine
runs. A run that sleeps or blocks ends at a wall-clock backstop,
max(--test-timeout-wall-floor, --test-timeout-wall-factor × its limit).
--test-timeout-clock wall limits the run's wall-clock time instead, as
corpora built before CPU limits did.`

// register adds the flags to fl; adaptive adds the floor, factor, cap and
// backstop flags too (corpus build), where the others take the defaults.
func (f *timeLimitFlags) register(fl *pflag.FlagSet, adaptive bool) {
	f.Adaptive, f.Changed = adaptive, fl.Changed
	fl.StringVar(&f.Clock, "test-timeout-clock", corpus.ClockCPU, "what time limits count: cpu (the CPU time of the program's import and tests) or wall (wall-clock time of the run)")
	fl.DurationVar(&f.Fixed, "test-timeout", 0, "one fixed limit per test-suite run for every task, on --test-timeout-clock (0: adaptive, from each task's reference)")
	if !adaptive {
		return
	}
	fl.DurationVar(&f.Floor, "test-timeout-floor", corpus.DefaultCPUFloor, fmt.Sprintf("adaptive limit: the least limit of a task (with --test-timeout-clock wall the default is %v)", corpus.DefaultTimeoutFloor))
	fl.Float64Var(&f.Factor, "test-timeout-factor", corpus.DefaultCPUFactor, "adaptive limit: this many times the reference's median run")
	fl.DurationVar(&f.Cap, "test-timeout-cap", corpus.DefaultCPUCap, "adaptive limit: the largest limit of a task (and the limit of the reference runs)")
	fl.DurationVar(&f.WallFloor, "test-timeout-wall-floor", corpus.DefaultWallFloor, "CPU limits: the least wall-clock backstop of a run")
	fl.Float64Var(&f.WallFactor, "test-timeout-wall-factor", corpus.DefaultWallFactor, "CPU limits: the wall-clock backstop is this many times the run's CPU limit (≥ 1)")
}
