// Package sandbox runs untrusted Python programs against their pytest files,
// fast, isolated, and so that a program cannot write its own verdict.
//
// A Pool keeps warm Python workers (worker.py and the harness files it
// imports, embedded). Each worker is started by /usr/bin/python3 in new
// net, mount, pid, ipc and uts namespaces and inside its own cgroup (pids
// and memory limits, on cgroup v1 or v2; on v2 the process moves itself into
// a leaf of its cgroup so that it can hand the controllers down). It imports
// pytest and runs it once to load every lazily imported module, pivots into
// a new root of read-only bind mounts holding only the Python installation,
// what pytest imported and a private run folder (no /proc, no host /tmp,
// /work or home, no task file, repository or triage binary), builds one
// pytest Config and Session for the run folder, installs a seccomp filter
// (with no_new_privs) against what the sandbox never needs (ptrace, bpf,
// mount, unshare/setns and namespace clones, keyctl, and more) and forks a
// fork server, a copy of itself that only forks a run's processes.
//
// Each run has two processes (README.md, "Two processes"): a judge, which
// continues the warm pytest Session with the test file (pytest's collection
// and run, or the direct runner's for a file of plain shape) and never
// executes the program's code, and a program process, which imports
// solution.py and answers the judge's requests over a socket as an
// unprivileged uid, in a folder of its own, under the run's rlimits. Only
// data crosses, by exact type and within limits; what is not data is a
// handle, equal only to itself; the program's exceptions, output, warnings,
// its mutations of the test's arguments and per-test coverage come back.
// The worker counts both processes' CPU from the start marks they write
// before any test or program code runs and kills them at the CPU limit
// (Options.CPULimit; README.md, "Time limits"), or at the program's own
// budget (Options.ProgramCPULimit, the program process alone). The judge
// streams one JSON line per test on a pipe only it holds; when the judge
// ends, every other process of the namespace is killed. A direct run's
// judge is kept for the next run of the same test file, which then forks
// only its program process (README.md, "A judge kept across runs"): the
// kept judge puts back what a run's test code changed in it, and it is
// ended with everything else after a program that made a process. Workers run with
// PYTHONHASHSEED=0, so set order is the same in every run.
//
// A verdict is a label a model learns from, so a pass must not be forgeable
// (issues 12, 19, 40): whatever the program does, to pytest, to the values
// it returns or to the modules the test uses, happens in its own process,
// and the judge decides every comparison on its own objects. The test ids
// of each test file, collected once with a stand-in for the program (or
// read from the text of a plain file), must equal the run's collection;
// a run that differs has status corpus.StatusTamper: every test failed, the
// reason in the feedback. README.md says what remains out of reach.
//
// Options: -p no:cacheprovider, no:unraisableexception, no:threadexception
// (they never change a verdict) and --tb=short (feedback format only); the
// terminal reporter is unregistered after configuration (its options stay).
//
// Layers that cannot work (not root, no cgroups, not x86-64) are skipped with
// a slog warning; Pool.Protections lists what is in force. The memory and
// process limits are the exception when Options.Limits is LimitsRequire
// (the CLI's default): without them New refuses with ErrNoLimits. Without
// writable cgroups (an account without privilege, a pod that is not
// privileged) they hold when each run has a uid of its own: as root of a
// user namespace (a pod with hostUsers: false) a uid of its map; as an
// account with subordinate ids, in a user namespace of each worker's own
// mapped by newuidmap/newgidmap; then RLIMIT_NPROC bounds the run's
// processes and the sandbox's own memory accounting its memory (README.md,
// "Without privilege").
//
// Imports: corpus only (and model/tokenizer, were it to count tokens); it
// knows nothing of policies or search.
package sandbox
