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
const timeLimitsHelp = corpus.TimeLimitsHelp

// register adds the flags to fl; adaptive adds the floor, factor, cap and
// backstop flags too (corpus build), where the others take the defaults.
func (f *timeLimitFlags) register(fl *pflag.FlagSet, adaptive bool) {
	f.Adaptive, f.Changed = adaptive, fl.Changed
	fl.StringVar(&f.Clock, "test-timeout-clock", corpus.ClockCPU, "what time limits count: cpu (the run's CPU time from the start of collection: the program's import, collection, the tests and pytest's reports) or wall (wall-clock time of the run)")
	fl.DurationVar(&f.Fixed, "test-timeout", 0, "one fixed limit per test-suite run for every task, on --test-timeout-clock (0: adaptive, from each task's reference)")
	if !adaptive {
		return
	}
	fl.DurationVar(&f.Floor, "test-timeout-floor", corpus.DefaultCPUFloor, fmt.Sprintf("adaptive limit: the least limit of a task (with --test-timeout-clock wall the default is %v)", corpus.DefaultTimeoutFloor))
	fl.Float64Var(&f.Factor, "test-timeout-factor", corpus.DefaultCPUFactor, "adaptive limit: this many times the CPU of the reference's import and test bodies (median run; the whole count with --test-timeout-harness-factor 0, the wall time with --test-timeout-clock wall)")
	fl.DurationVar(&f.Cap, "test-timeout-cap", corpus.DefaultCPUCap, "adaptive limit: the largest limit of a task (and the limit of the reference runs)")
	fl.Float64Var(&f.HarnessFactor, "test-timeout-harness-factor", corpus.DefaultHarnessFactor, "CPU limits: pytest's allowance is this many times the reference's CPU outside its import and test bodies (collection, reports); 0: no split, --test-timeout-factor × the whole count")
	fl.DurationVar(&f.HarnessFloor, "test-timeout-harness-floor", corpus.DefaultHarnessFloor, "CPU limits: the least allowance for pytest's collection and reports of a run")
	fl.DurationVar(&f.ProgramFloor, "test-timeout-program-floor", corpus.DefaultProgramFloor, "CPU limits: the least budget of the program's own code in a run (its import and test bodies: --test-timeout-factor × the reference's), within the run's limit; a loop ends there (0: no such budget)")
	fl.Float64Var(&f.ProgramHarnessFactor, "test-timeout-program-harness-factor", corpus.DefaultProgramHarnessFactor, "CPU limits: scale the program's floor to the machine: min(--test-timeout-program-floor, this many times the reference's CPU outside its import and test bodies) (0: the fixed floor)")
	fl.DurationVar(&f.WallFloor, "test-timeout-wall-floor", corpus.DefaultWallFloor, "CPU limits: the least wall-clock backstop of a run")
	fl.Float64Var(&f.WallFactor, "test-timeout-wall-factor", corpus.DefaultWallFactor, "CPU limits: the wall-clock backstop is this many times the run's CPU limit (≥ 1)")
}
