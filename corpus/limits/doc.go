// Package limits is the time-limit policy of test-suite runs: TimeLimits
// derive a task's limit from its reference solution's run time (median of
// timed runs), on the CPU clock by default (the program charged apart from
// pytest's own work, with a budget of the program's own within it) or on
// the wall clock, so that a mutant stuck in a loop costs a fraction of a
// second. A build records its limits in its manifest; the sandbox starts
// with their measure.
//
// Imports: corpus.
package limits
