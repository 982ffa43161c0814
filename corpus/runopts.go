package corpus

import (
	"context"
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

// UsesCoverage reports whether p reads per-test coverage.
func UsesCoverage(p Proposer) bool {
	c, ok := p.(CoverageUser)
	return ok && c.UsesCoverage()
}

// BusyReporter is implemented by executors that report how long their
// slots were held in all (the sandbox pool), so a build can tell idle
// workers from per-run overhead.
type BusyReporter interface {
	BusyTime() time.Duration
}
