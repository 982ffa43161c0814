package sandbox

import (
	"runtime"
	"time"
)

// Options configures a Pool. Zero fields take the DefaultOptions value.
type Options struct {
	// Workers is the number of warm workers, i.e. concurrent runs
	// (default runtime.NumCPU()).
	Workers int
	// Python is the interpreter that has pytest (default /usr/bin/python3).
	Python string
	// Timeout is the wall-clock limit of one run (default 10s): the limit
	// itself, or, with CPULimit, the backstop for programs that sleep or
	// block. Without CPULimit, the CPU-time rlimit is the same number of
	// seconds, rounded up.
	Timeout time.Duration
	// CPULimit, when > 0, limits the CPU time of a run (all threads of the
	// run's process and the children it waited for), counted from the
	// moment the harness starts to collect the test file: the program's
	// import, collection, the tests and their reports; not the harness's own
	// set-up. The worker enforces it from outside the program (it reads the
	// child's CPU clock and kills it), to the millisecond; the verdict is
	// timeout whenever the count ends at or above the limit, so it does not
	// depend on when the worker looked.
	CPULimit time.Duration
	// ProgramCPULimit, when > 0 and below CPULimit, is the program's own
	// budget within a run's CPU limit: the CPU of the run's program process
	// (solution.py's import and every call into it), which the worker reads
	// from outside; a run over it ends as a timeout. It lets a loop stop at
	// a few times the program's own need instead of at the whole limit,
	// most of which is pytest's allowance. Runs only: the reference
	// collection keeps CPULimit alone.
	ProgramCPULimit time.Duration
	// MemoryMB caps one run's address space (RLIMIT_AS) and, plus the work
	// tmpfs and the worker's own share, the worker's memory cgroup (default 1024).
	MemoryMB int
	// MaxProcs caps processes and threads: RLIMIT_NPROC of the run's uid and
	// pids.max of the worker's cgroup (default 64).
	MaxProcs int
	// OutputBytes caps every file the run writes, captured output included
	// (RLIMIT_FSIZE; default 16 MiB). Reaching it gives StatusOutput.
	OutputBytes int64
	// TmpfsMB is the size of the private work dir (default 64).
	TmpfsMB int
	// FeedbackChars truncates Execution.Feedback, keeping the head (default 4000).
	FeedbackChars int
	// Coverage fills TestResult.Lines with the lines of solution.py each test executed.
	Coverage bool
	// Dir is where the pool's temporary folder is made (default os.TempDir()).
	Dir string
	// NoIsolation starts workers without namespaces, cgroups or a uid change
	// (rlimits and timeouts still apply). For debugging and comparison only.
	NoIsolation bool
	// Limits says what New does when the workers' cgroup memory and
	// process limits cannot be set up (not root, cgroups read-only, v2
	// controllers not delegated) and the limits without cgroups do not hold
	// either (nslimits.go): LimitsWarn (the default) runs without them and
	// logs it, LimitsRequire refuses with ErrNoLimits.
	Limits LimitsPolicy
	// UIDBase is the first uid runs are dropped to; worker i uses UIDBase+i.
	// Zero picks a block of 64 uids from the process id, so pools of
	// different processes do not share RLIMIT_NPROC counts, among the uids
	// that can be set (userns.go). Used as root, or in the workers' own user
	// namespaces of an account with subordinate ids; New refuses a UIDBase
	// whose uids are not mapped.
	UIDBase int

	// disabled switches single layers off, for the benchmarks that measure
	// what each one costs (layer* names); never set outside this package.
	disabled layerSet
	// phases asks each run's child for its CPU by phase (Bench).
	phases bool
	// ownCPU asks a run's program process to count its own code's CPU
	// (RunOptions.SplitCPU: a trusted reference's run).
	ownCPU bool
}

// Layers that the package's benchmarks can switch off one at a time.
const (
	layerReferenceIDs = "reference-ids"
	layerSeccomp      = "seccomp"
	layerAllowlist    = "mount-allowlist"
	layerStaticIDs    = "static-ids"
	layerDirect       = "direct"
	layerForkServer   = "fork-server"
	layerKeptJudge    = "kept-judge"
)

// layerSet is a set of layer names.
type layerSet map[string]bool

// workerLayers lists the switched-off layers that worker.py implements.
func (l layerSet) workerLayers() []string {
	var out []string
	for _, name := range []string{layerSeccomp, layerAllowlist, layerStaticIDs, layerDirect, layerForkServer, layerKeptJudge} {
		if l[name] {
			out = append(out, name)
		}
	}
	return out
}

// DefaultOptions returns the defaults described on Options.
func DefaultOptions() Options {
	return Options{
		Workers:       runtime.NumCPU(),
		Python:        "/usr/bin/python3",
		Timeout:       10 * time.Second,
		MemoryMB:      1024,
		MaxProcs:      64,
		OutputBytes:   16 << 20,
		TmpfsMB:       64,
		FeedbackChars: 4000,
	}
}

// withDefaults fills zero fields from DefaultOptions.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Workers <= 0 {
		o.Workers = d.Workers
	}
	if o.Python == "" {
		o.Python = d.Python
	}
	if o.Timeout <= 0 {
		o.Timeout = d.Timeout
	}
	if o.MemoryMB <= 0 {
		o.MemoryMB = d.MemoryMB
	}
	if o.MaxProcs <= 0 {
		o.MaxProcs = d.MaxProcs
	}
	if o.OutputBytes <= 0 {
		o.OutputBytes = d.OutputBytes
	}
	if o.TmpfsMB <= 0 {
		o.TmpfsMB = d.TmpfsMB
	}
	if o.FeedbackChars <= 0 {
		o.FeedbackChars = d.FeedbackChars
	}
	if o.Limits == "" {
		o.Limits = LimitsWarn
	}
	return o
}
