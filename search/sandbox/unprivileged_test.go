package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"triage/corpus"
)

// seccompProfile is the seccomp profile the build pods run under
// (docs/deploy.md).
const seccompProfile = "../../scripts/deploy/seccomp/triage-build.json"

// systemPython is Debian's interpreter, which has python3-seccomp.
const systemPython = "/usr/bin/python3"

// unprivilegedEnv marks the child process TestUnprivilegedSandbox starts as
// an account without privilege: there the hostile-program suites run with
// the workers in user namespaces of their own and the limits without
// cgroups.
const unprivilegedEnv = "TRIAGE_SANDBOX_TEST_UNPRIVILEGED"

// unprivilegedUser is the account `make prereqs` makes for the test: no
// login, 65536 subordinate uids and gids (Makefile, check-uidmap).
const unprivilegedUser = "triage-unpriv"

// inUnprivilegedChild reports whether this process is that child (the
// variable says how it runs: "account" or "pod").
func inUnprivilegedChild() bool { return os.Getenv(unprivilegedEnv) != "" }

// skipUnlessFullSandbox skips the hostile-program suites where the full
// sandbox cannot run: they need root, or to be the unprivileged child.
func skipUnlessFullSandbox(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 && !inUnprivilegedChild() {
		t.Skip("the full sandbox (namespaces, uid drop, limits) needs root, or an account with subordinate ids (TestUnprivilegedSandbox)")
	}
}

// limitLayers are the protections that bound a run's memory and processes
// in this process: the cgroups as root, the namespaced set (and the
// workers' own user namespaces) in the unprivileged child.
func limitLayers() []string {
	switch os.Getenv(unprivilegedEnv) {
	case "account":
		return append(slices.Clone(namespacedLimits), "userns")
	case "pod":
		return namespacedLimits
	}
	return cgroupLimits
}

// checkLimitsInForce checks slot s's memory and process limits: its
// cgroup's, or without one, the run's own uid mapped in the worker's user
// namespace and the memory accounting's limit.
func checkLimitsInForce(t *testing.T, p *Pool, s *slot, maxProcs int, memMB int64) {
	t.Helper()
	if s.cg != nil && s.cg.pids != "" {
		pidsMax, mem := s.cg.limitsInForce()
		if pidsMax != strconv.Itoa(maxProcs) {
			t.Fatalf("pids.max = %q, want %d", pidsMax, maxProcs)
		}
		if m, _ := strconv.ParseInt(mem, 10, 64); m <= 0 || m > memMB<<20 {
			t.Fatalf("memory.limit_in_bytes = %q", mem)
		}
		return
	}
	if s.hostUID < 0 || s.hostUID == os.Geteuid() {
		t.Fatalf("no cgroup and no uid of the runs' own to account (host uid %d)", s.hostUID)
	}
	if got := memLimitBytes(p.opts); got > memMB<<20 {
		t.Fatalf("memory accounting limit %d bytes, want at most %d MiB", got, memMB)
	}
	if p.opts.MaxProcs != maxProcs {
		t.Fatalf("RLIMIT_NPROC %d, want %d", p.opts.MaxProcs, maxProcs)
	}
	m, err := os.ReadFile(fmt.Sprintf("/proc/%d/uid_map", s.w.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	ranges, err := parseIDMap(string(m))
	if p.uns != nil {
		// The worker is root of its own user namespace, whose uid 0 is
		// this account, and the run's uid maps to its own uid outside.
		if err != nil || len(ranges) != 2 || ranges[0] != (idRange{0, int64(os.Geteuid()), 1}) || !covers(ranges, int64(s.uid), int64(s.uid)+1) {
			t.Fatalf("worker's uid map %q (%v): want root as this account and the run's uid %d mapped", m, err, s.uid)
		}
		return
	}
	// Root of a user namespace (a pod's): the run's uid is one of its range.
	if err != nil || covers(ranges, rootUIDRangeLow, rootUIDRangeLow+1) || !covers(ranges, int64(s.uid), int64(s.uid)+1) {
		t.Fatalf("uid map %q (%v): want a user namespace's range holding the run's uid %d", m, err, s.uid)
	}
}

// checkOnlyTheWorker checks that nothing a run started is left: in the
// worker's cgroup, or without one, below the worker.
func checkOnlyTheWorker(t *testing.T, s *slot) {
	t.Helper()
	if s.w == nil {
		return
	}
	if s.cg != nil && s.cg.pids != "" {
		procs, err := s.cg.procs()
		if err != nil || !onlyTheWorker(s, procs) {
			t.Errorf("cgroup procs %v (err %v), want only the worker (and its fork server)", procs, err)
		}
		return
	}
	below := descendants(s.w.cmd.Process.Pid)
	if !onlyTheWorker(s, append([]int{s.w.cmd.Process.Pid}, below...)) {
		t.Errorf("processes below the worker %d: %v, want only its fork server", s.w.cmd.Process.Pid, below)
	}
}

// runHostUID is the uid a run of slot s (uid inside the worker) has as
// this process sees it.
func runHostUID(s *slot, uid int) int {
	if s.hostUID >= 0 {
		return s.hostUID
	}
	return uid
}

// TestUnprivilegedSandbox runs the hostile-program suites (TestAdversarial,
// TestAdversarialForgeries) and TestUnprivilegedLimits without privilege,
// without cgroups and with LimitsRequire, two ways:
//
//   - account: as an account without privilege (triage-unpriv, made by `make
//     prereqs`) whose workers start in user namespaces of their own with its
//     subordinate uid range mapped by newuidmap/newgidmap;
//   - pod: as root of a user namespace that maps that range (what a build pod
//     with hostUsers: false is), with no_new_privs set
//     (allowPrivilegeEscalation: false).
//
// Either way the process runs as a build pod's would: under the seccomp
// profile the project ships (scripts/deploy/seccomp/triage-build.json) and
// with the capability bounding set cut to PodCapabilities (which bounds
// what the workers hold in their namespaces). Every suite passes, and none
// of them skips.
func TestUnprivilegedSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile programs are skipped in -short mode")
	}
	if inUnprivilegedChild() {
		t.Skip("this is the unprivileged child")
	}
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	if os.Geteuid() != 0 {
		t.Skipf("starts the suites as the account %s and as root of a user namespace: run as root", unprivilegedUser)
	}
	acct, err := user.Lookup(unprivilegedUser)
	if err != nil {
		t.Skipf("no account %s (make prereqs makes it, with Debian's uidmap): %v", unprivilegedUser, err)
	}
	for _, prog := range []string{"newuidmap", "newgidmap", "setpriv"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s not found: install Debian's uidmap and util-linux (make prereqs does)", prog)
		}
	}
	if out, err := exec.Command(systemPython, "-c", "import seccomp").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import seccomp (Debian's python3-seccomp; make prereqs installs it): %v %s", systemPython, err, out)
	}
	uid, _ := strconv.Atoi(acct.Uid)
	gid, _ := strconv.Atoi(acct.Gid)
	sub := [2]idRange{}
	for i, file := range subIDFiles {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Skipf("%v (make prereqs gives %s subordinate ids)", err, unprivilegedUser)
		}
		ranges, err := parseSubIDs(string(data), unprivilegedUser, uid)
		if err != nil || len(ranges) == 0 || ranges[0].Count < minSubIDs {
			t.Skipf("%s: no range of %d ids for %s (%v)", file, minSubIDs, unprivilegedUser, err)
		}
		sub[i] = ranges[0]
	}
	t.Run("account", func(t *testing.T) {
		runUnprivileged(t, "account", uid, gid, func(cmd *exec.Cmd, setpriv []string) []string {
			return append(setpriv, fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", gid), "--clear-groups")
		})
	})
	t.Run("account without newuidmap", func(t *testing.T) {
		// no_new_privs: the set-user-ID newuidmap gains nothing and fails.
		runUnprivileged(t, "account-nnp", uid, gid, func(cmd *exec.Cmd, setpriv []string) []string {
			return append(setpriv, fmt.Sprintf("--reuid=%d", uid), fmt.Sprintf("--regid=%d", gid), "--clear-groups", "--no-new-privs")
		})
	})
	t.Run("pod", func(t *testing.T) {
		// Root of the new user namespace is the range's first id outside.
		runUnprivileged(t, "pod", int(sub[0].Outside), int(sub[1].Outside), func(cmd *exec.Cmd, setpriv []string) []string {
			cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: int(sub[0].Outside), Size: int(sub[0].Count)}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: int(sub[1].Outside), Size: int(sub[1].Count)}}
			cmd.SysProcAttr.GidMappingsEnableSetgroups = true
			// Root inside: the range's first ids outside.
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
			return append(setpriv, "--no-new-privs")
		})
	})
}

// runUnprivileged runs the suites in a child of the given mode whose files
// belong to uid and gid (as this process sees them); how adds to the
// command (the child's namespaces) and to setpriv's arguments.
func runUnprivileged(t *testing.T, mode string, uid, gid int, how func(cmd *exec.Cmd, setpriv []string) []string) {
	profile, err := filepath.Abs(seccompProfile)
	if err != nil {
		t.Fatal(err)
	}
	loader, err := filepath.Abs(filepath.Join("testdata", "load_seccomp_profile.py"))
	if err != nil {
		t.Fatal(err)
	}
	var bounding []string
	for _, c := range PodCapabilities {
		bounding = append(bounding, "+"+strings.ToLower(c))
	}
	// The child reaches nothing of root's: the test binary, a home and a
	// temporary folder of its own.
	dir, err := os.MkdirTemp("", "triage-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	copyFile(t, os.Args[0], bin, 0o755)
	home, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	// As a pod's runtime would: the shipped seccomp profile installed, the
	// capability bounding set cut to PodCapabilities.
	cmd := exec.Command(systemPython)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	setpriv := how(cmd, []string{"/usr/bin/setpriv", "--bounding-set=-all," + strings.Join(bounding, ","), "--inh-caps=-all"})
	suites := []string{"TestAdversarial", "TestAdversarialForgeries", "TestUnprivilegedLimits"}
	if mode == "account-nnp" {
		suites = []string{"TestUnprivilegedFallback"}
	}
	cmd.Args = append(append([]string{systemPython, loader, profile, "--"}, setpriv...), "--",
		bin, "-test.run", "^("+strings.Join(suites, "|")+")$", "-test.v", "-test.count=1", "-test.timeout=20m")
	cmd.Dir = tmp
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + tmp, "USER=" + unprivilegedUser, unprivilegedEnv + "=" + mode}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = cmd.Run()
	t.Logf("the suites (%s, uid %d outside) took %v", mode, uid, time.Since(start).Round(time.Second))
	passed, failed, skipped := summarize(out.String())
	t.Logf("%d passed, %d failed, %d skipped", len(passed), len(failed), len(skipped))
	if err != nil || len(failed) > 0 || len(skipped) > 0 {
		t.Fatalf("the suites (%s): %v; failed %v; skipped %v\n%s", mode, err, failed, skipped, failures(out.String()))
	}
	for _, top := range suites {
		if !slices.Contains(passed, top) {
			t.Errorf("%s did not pass (%s):\n%s", top, mode, tail(out.String(), 20000))
		}
	}
	// What the limits test saw, for the log.
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "unprivileged_test.go:") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

// summarize lists the tests (subtests included) that passed, failed and
// were skipped in go test -v output.
func summarize(out string) (passed, failed, skipped []string) {
	re := regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		switch m[1] {
		case "PASS":
			passed = append(passed, m[2])
		case "FAIL":
			failed = append(failed, m[2])
		case "SKIP":
			skipped = append(skipped, m[2])
		}
	}
	return passed, failed, skipped
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUnprivilegedLimits (in the unprivileged child only) shows each limit
// in force without cgroups: the pool starts with LimitsRequire; CPU time (a
// loop ends at its CPU limit), memory (processes that together hold more
// than the limit, each under its own RLIMIT_AS, are killed by the
// accounting), the process count (forks stop at MaxProcs), the wall-clock
// backstop (a sleep ends at it), the file system (nothing outside the run
// folder is writable, the host's files are not there) and the network (no
// route to a listener of the host).
func TestUnprivilegedLimits(t *testing.T) {
	if !inUnprivilegedChild() {
		t.Skip("run by TestUnprivilegedSandbox as an account without privilege")
	}
	p, err := New(Options{Workers: 1, Timeout: 20 * time.Second, CPULimit: 5 * time.Second, MemoryMB: 400, MaxProcs: 16, TmpfsMB: 16,
		UIDBase: advUIDBase + 3, Limits: LimitsRequire})
	if err != nil {
		t.Fatalf("New with LimitsRequire: %v", err)
	}
	defer p.Close()
	prot := p.Protections()
	for _, need := range append(limitLayers(), "seccomp", "no-new-privs", "ipcns", "utsns", "mount-allowlist", "wall-timeout", "output-cap") {
		if !slices.Contains(prot, need) {
			t.Fatalf("protection %s missing: %v", need, prot)
		}
	}
	for _, no := range cgroupLimits {
		if slices.Contains(prot, no) {
			t.Fatalf("an unprivileged account has %s: %v", no, prot)
		}
	}
	t.Logf("protections: %v", prot)
	s := p.all[0]
	checkLimitsInForce(t, p, s, 16, 400+16+256)
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx := context.Background()
	const tests = "from solution import run\n\ndef test_run():\n    assert run() is True\n"
	// Generous limits for the runs that are not about time: the machine
	// may be busy.
	roomy := corpus.RunOptions{CPU: 5 * time.Second, Timeout: 10 * time.Second}
	for _, c := range []struct {
		name, program string
		limits        corpus.RunOptions
		status        corpus.Status
		feedback      string // a part of the feedback, when it must say why
	}{
		{"CPU time", "def run():\n    while True:\n        pass\n", corpus.RunOptions{CPU: 300 * time.Millisecond, Timeout: 20 * time.Second},
			corpus.StatusTimeout, "more than 300ms of CPU time"},
		{"wall backstop", "import time\ndef run():\n    time.sleep(60)\n", corpus.RunOptions{CPU: time.Second, Timeout: 2 * time.Second},
			corpus.StatusTimeout, "wall-clock backstop of 2s"},
		{"memory over processes", `import os, time
def run():
    kids = []
    for _ in range(8):
        pid = os.fork()
        if pid == 0:
            b = bytearray(120 << 20)
            for i in range(0, len(b), 4096):
                b[i] = 1
            time.sleep(30)
            os.kill(os.getpid(), 9)
        kids.append(pid)
    time.sleep(30)
    return True
`, roomy, corpus.StatusCrash, "over the memory limit"},
		{"process count", `import os, time
def run():
    n = 0
    for _ in range(200):
        try:
            if os.fork() == 0:
                time.sleep(30)
                os.kill(os.getpid(), 9)
            n += 1
        except OSError:
            break
    return 0 < n < 16
`, roomy, corpus.StatusOK, ""},
		{"file system", `import os
def run():
    for path in ["/etc/passwd-pwned", "/usr/pwned", "/pwned", "/sandbox/../pwned", ` + strconv.Quote(os.Getenv("HOME")+"/pwned") + `]:
        try:
            open(path, "w").write("x")
            return False
        except OSError:
            pass
    for path in [` + strconv.Quote(os.Getenv("HOME")) + `, "/sys/fs/cgroup", "/home", "/root", "/etc/shadow"]:
        if os.path.exists(path):
            return False
    return True
`, roomy, corpus.StatusOK, ""},
		{"network", fmt.Sprintf(`import socket
def run():
    try:
        socket.create_connection(("127.0.0.1", %d), timeout=1).close()
        return False
    except OSError:
        return True
`, ln.port), roomy, corpus.StatusOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			ex, err := p.RunWith(ctx, c.program, tests, c.limits)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s after %v: %s", c.name, ex.Status, took.Round(time.Millisecond), firstLines(ex.Feedback, 2))
			if ex.Status != c.status || (c.status == corpus.StatusOK && !ex.Solved()) || !strings.Contains(ex.Feedback, c.feedback) {
				t.Errorf("status %s (solved %v), want %s with %q in the feedback:\n%s", ex.Status, ex.Solved(), c.status, c.feedback, ex.Feedback)
			}
			if took > c.limits.Timeout+outerGrace+2*time.Second {
				t.Errorf("verdict after %v, want within the wall limit %v", took, c.limits.Timeout)
			}
			checkOnlyTheWorker(t, s)
			if left := processesOfUID(s.hostUID); len(left) > 0 {
				t.Errorf("processes left as uid %d: %v", s.hostUID, left)
			}
		})
	}
	select {
	case <-ln.accepted:
		t.Error("a run reached a listener of the host")
	default:
	}
}

// hostListener is a TCP listener of the host's network that counts
// connections.
type hostListener struct {
	net.Listener
	port     int
	accepted chan struct{}
}

func netListen() (*hostListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hostListener{Listener: ln, port: ln.Addr().(*net.TCPAddr).Port, accepted: make(chan struct{}, 16)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.accepted <- struct{}{}
			c.Close()
		}
	}()
	return h, nil
}

// failures keeps the lines of go test -v output that tell what failed or
// skipped: those of the failing or skipped tests (indented output after a
// --- FAIL or --- SKIP line), and the last lines.
func failures(out string) string {
	lines := strings.Split(out, "\n")
	var keep []string
	in := false
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(trimmed, "--- FAIL") || strings.HasPrefix(trimmed, "--- SKIP"):
			in = true
		case strings.HasPrefix(trimmed, "--- PASS") || strings.HasPrefix(trimmed, "=== RUN"):
			in = false
		}
		if in {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n") + "\n...\n" + tail(out, 4000)
}

// TestUnprivilegedFallback (in the unprivileged child whose newuidmap
// cannot work, no_new_privs being set): LimitsRequire refuses with the
// reason, LimitsWarn starts the workers as before user namespaces, and a
// run still passes.
func TestUnprivilegedFallback(t *testing.T) {
	if os.Getenv(unprivilegedEnv) != "account-nnp" {
		t.Skip("run by TestUnprivilegedSandbox as an account whose newuidmap cannot work")
	}
	_, err := New(Options{Workers: 1, Limits: LimitsRequire})
	if !errors.Is(err, ErrNoLimits) || !strings.Contains(err.Error(), "user namespace") {
		t.Fatalf("New with LimitsRequire: %v, want ErrNoLimits naming the user namespace", err)
	}
	p, err := New(Options{Workers: 1, Limits: LimitsWarn, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("New with LimitsWarn: %v", err)
	}
	defer p.Close()
	if prot := p.Protections(); slices.Contains(prot, "userns") || slices.Contains(prot, "memory-accounting") {
		t.Errorf("protections %v after the fallback", prot)
	}
	ex, err := p.Run(context.Background(), "def run():\n    return True\n", "from solution import run\n\ndef test_run():\n    assert run() is True\n")
	if err != nil || !ex.Solved() {
		t.Fatalf("run: %v %s %s", err, ex.Status, ex.Feedback)
	}
}
