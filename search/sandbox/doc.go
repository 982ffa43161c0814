// Package sandbox runs untrusted Python programs against their pytest files,
// fast and isolated.
//
// A Pool keeps warm Python workers (worker.py, embedded). Each worker is
// started by /usr/bin/python3 in new net, mount, pid, ipc and uts namespaces
// and inside its own cgroup v1 (pids and memory); it imports pytest, runs it
// once to load every lazily imported module, then builds one pytest Config
// and starts one Session for a fixed private work dir (a tmpfs; the rest of
// the file system is mounted read-only and home folders are hidden). For each
// run it writes solution.py and test_solution.py (plus pytest's own
// assertion-rewritten pyc of the test file, cached per test-file hash), forks
// a child that drops to an unprivileged uid, sets rlimits (CPU, address space,
// processes, file size, open files) and continues that Session: collection,
// the run loop and session finish, streaming one report per test back. When
// the child ends (or the wall limit passes) every other process of the
// namespace is killed. Verdicts are pytest's own: only configuration and
// session start-up are shared, and every run forks from the same clean state.
//
// Options: -p no:cacheprovider, no:unraisableexception, no:threadexception
// (they never change a verdict) and --tb=short (feedback format only); the
// terminal reporter is unregistered after configuration (its options stay).
//
// Layers that cannot work (not root, no cgroups) are skipped with a slog
// warning; Pool.Protections lists what is in force.
package sandbox
