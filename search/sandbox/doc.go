// Package sandbox runs untrusted Python programs against their pytest files,
// fast, isolated, and so that a program cannot write its own verdict.
//
// A Pool keeps warm Python workers (worker.py, embedded with guard.py,
// confine.py, compare.py and recheck.py). Each worker is started by /usr/bin/python3 in
// new net, mount, pid, ipc and uts namespaces and inside its own cgroup
// (pids and memory limits, on cgroup v1 or v2; on v2 the process moves
// itself into a leaf of its cgroup so that it can hand the controllers down). It installs an audit hook (inert until a run arms it),
// imports pytest and runs it once to load every lazily imported module,
// pivots into a new root of read-only bind mounts holding only the Python
// installation, what pytest imported and a private run folder (no /proc, no
// host /tmp, /work or home, no task file, repository or triage binary),
// builds one pytest Config and Session for the run folder and installs a
// seccomp filter (with no_new_privs) against what the sandbox never needs:
// ptrace, bpf, mount, unshare/setns and namespace clones, keyctl, and more.
//
// For each run it writes solution.py and test_solution.py (plus pytest's own
// assertion-rewritten pyc of the test file, cached per test-file hash),
// checks the program statically and has a child forked that drops to an
// unprivileged uid, sets rlimits (CPU, address space, processes, file size,
// open files), refuses itself new signal handlers, arms the audit hook and
// continues that Session: collection, the run loop and session finish,
// streaming one HMAC-signed report line per test back. The worker counts the
// child's CPU time from a mark the child writes before collection and kills
// it at the CPU limit (Options.CPULimit; README.md, "Time limits"). When
// the child ends (or a limit is reached) every other process of the
// namespace is killed. Verdicts are
// pytest's own: only configuration and session start-up are shared, and
// every run forks from the same clean state. Inside its pid namespace the
// worker forks those children through a fork server, a copy of itself made
// once after start-up that only forks, reaps and kills what a run left
// behind, so the worker's own pages are never shared with a run's child
// (each page it wrote after a fork used to cost it a fault; README.md,
// "The fork server"). For a test file of plain shape
// (one literal parametrize allowed), the child calls the tests itself with
// pytest's own warning filters, log handlers, capture, assertion
// explanations and failure text, skipping pytest's collection; anything it
// does not reproduce goes back to pytest's run (README.md, "The direct
// runner"). Workers run with PYTHONHASHSEED=0, so set order is the same in
// every run.
//
// A verdict is a label a model learns from, so a pass must not be forgeable
// (issue 12). The layers, each described in README.md with the forgeries it
// stops and what it costs:
//   - the test ids of each test file, collected once with a stand-in for the
//     program (or read from the text of a plain file), must equal the run's
//     collection, and a report of a test that was not collected is rejected;
//   - the result channel needs a per-run key, and neither /proc nor the
//     frames and objects of the harness are within the program's reach: the
//     audit hook refuses frame access, tracing, gc walks, ctypes, new code
//     objects and foreign byte code, and the seccomp filter refuses signal
//     handlers (which would hand over the interrupted frame);
//   - a static check of the program looks for what no honest solution needs
//     (harness imports, frame attributes, os._exit, comparison methods that
//     ignore their argument);
//   - both harnesses compile the test file with its ==, !=, in, not in and
//     unittest assertions checked (compare.py): a value compared with a
//     plain builtin value is judged by the builtin's own semantics (a
//     subclass as the builtin it is) or asked whether it also equals a fresh
//     object and nudged copies of the expected value; a lie is tamper;
//   - every run that passes every test is run again by recheck.py, a second
//     harness that shares none of pytest's runner, compiles the test file
//     from memory with private builtins and reports once, with its own key.
//
// A run caught by any of them gets status corpus.StatusTamper: every test
// failed, the reasons in the feedback. README.md says what remains out of
// reach.
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
