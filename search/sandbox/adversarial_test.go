package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"triage/corpus"
)

const advUIDBase = 62000

// hostileCase is one hostile program: the tests call run() from solution.py.
type hostileCase struct {
	name    string
	program string
	tests   string // default: calls run() and asserts it returns True
	allowed []corpus.Status
	solved  bool // whether the run may count as solved (true only for harmless-looking results)
}

func hostileTests() string {
	return "from solution import run\n\ndef test_hostile():\n    assert run() is True\n\ndef test_after():\n    assert 1 + 1 == 2\n"
}

// TestAdversarial runs hostile programs under the full sandbox. Each must
// give a verdict within its limit plus 2 s, leave no process behind, change
// nothing outside its temp dir, and the next run must still work. The pids
// and memory cgroups are shown to be in force first; every run sits under
// an outer deadline so a broken limit fails the test instead of hanging it.
func TestAdversarial(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile programs are skipped in -short mode")
	}
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	skipUnlessFullSandbox(t)
	const limit = 2 * time.Second
	p, err := New(Options{Workers: 1, Timeout: limit, MemoryMB: 512, MaxProcs: 32, OutputBytes: 4 << 20, TmpfsMB: 32, UIDBase: advUIDBase})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	prot := p.Protections()
	for _, need := range append(limitLayers(), "pidns", "netns", "mountns", "mount-allowlist", "readonly-root", "uid-drop", "private-tmpfs", "seccomp") {
		if !slices.Contains(prot, need) {
			t.Skipf("protection %s unavailable here (have %v)", need, prot)
		}
	}
	s := p.all[0]
	t.Run("AdversarialLimitsInForce", func(t *testing.T) {
		checkLimitsInForce(t, p, s, 32, 512+32+256)
		checkOnlyTheWorker(t, s)
	})
	if t.Failed() {
		t.FailNow()
	}

	outside := t.TempDir()
	keep := filepath.Join(outside, "keep.txt")
	if err := os.WriteFile(keep, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(os.TempDir(), fmt.Sprintf("triage-adversarial-%d", os.Getpid()))
	home, _ := os.UserHomeDir()
	var secret string
	if home != "" {
		f, err := os.CreateTemp(home, ".triage-sandbox-secret-")
		if err == nil {
			secret = f.Name()
			f.WriteString("TOPSECRET")
			f.Close()
			t.Cleanup(func() { os.Remove(secret) })
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	any := []corpus.Status{corpus.StatusOK, corpus.StatusCrash, corpus.StatusTimeout, corpus.StatusOutput, corpus.StatusLoadError, corpus.StatusTamper}
	cases := []hostileCase{
		{name: "fork bomb", program: "import os\ndef run():\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n", allowed: any},
		{name: "infinite loop", program: "def run():\n    while True:\n        pass\n", allowed: []corpus.Status{corpus.StatusTimeout}},
		{name: "sleep blocking SIGTERM", program: "import signal, time\ndef run():\n    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})\n    time.sleep(1000)\n", allowed: []corpus.Status{corpus.StatusTimeout}},
		{name: "memory bomb", program: "def run():\n    a = []\n    while True:\n        a.append(bytearray(64 << 20))\n", allowed: []corpus.Status{corpus.StatusOK, corpus.StatusCrash, corpus.StatusTimeout}},
		{name: "100 MB of output", program: "import sys\ndef run():\n    for _ in range(100):\n        sys.stdout.write('x' * (1 << 20))\n    return True\n", allowed: []corpus.Status{corpus.StatusOutput}},
		{name: "huge file in its temp dir", program: "def run():\n    with open('big.bin', 'wb') as f:\n        for _ in range(200):\n            f.write(b'x' * (1 << 20))\n    return True\n", allowed: []corpus.Status{corpus.StatusOK, corpus.StatusOutput}},
		{name: "writes outside the temp dir", program: fmt.Sprintf(`import os
def run():
    ok = False
    for path in [%q, "/etc/triage-pwned", "/usr/triage-pwned", "/dev/shm/triage-pwned", "/var/tmp/triage-pwned"]:
        try:
            with open(path, "w") as f:
                f.write("pwned")
            ok = True
        except OSError:
            pass
    try:
        os.remove(%q)
        ok = True
    except OSError:
        pass
    try:
        # /tmp inside the sandbox is the run's own folder: this must not reach the host's.
        with open(%q, "w") as f:
            f.write("pwned")
    except OSError:
        pass
    return ok
`, filepath.Join(outside, "pwned"), keep, stray), allowed: []corpus.Status{corpus.StatusOK}},
		{name: "network connection", program: fmt.Sprintf(`import socket
def run():
    for addr in [("127.0.0.1", %d), ("1.1.1.1", 53), ("8.8.8.8", 443)]:
        try:
            socket.create_connection(addr, timeout=0.5).close()
            return True
        except OSError:
            pass
    return False
`, port), allowed: []corpus.Status{corpus.StatusOK}},
		{name: "reads the invoking user's home", program: fmt.Sprintf(`import os
def run():
    for path in [%q, "/root/.bash_history", "/root/.ssh/id_rsa"]:
        try:
            with open(path) as f:
                if f.read():
                    return True
        except OSError:
            pass
    return bool(os.listdir(%q))
`, secret, home), allowed: []corpus.Status{corpus.StatusOK}},
		{name: "kills its parent", program: "import os, signal\ndef run():\n    for pid in (os.getppid(), 1):\n        try:\n            os.kill(pid, signal.SIGKILL)\n        except OSError:\n            pass\n    try:\n        os.kill(-1, signal.SIGKILL)\n    except OSError:\n        pass\n    return True\n", allowed: any, solved: true},
		{name: "daemon outlives the run", program: "import os, signal, time\ndef run():\n    if os.fork() == 0:\n        os.setsid()\n        if os.fork() == 0:\n            time.sleep(600)\n        os.kill(os.getpid(), signal.SIGKILL)\n    return True\n", allowed: []corpus.Status{corpus.StatusOK}, solved: true},
		{name: "killed during import", program: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\ndef run():\n    return True\n", allowed: []corpus.Status{corpus.StatusCrash}},
		{name: "os._exit during import", program: "import os\nos._exit(0)\ndef run():\n    return True\n", allowed: []corpus.Status{corpus.StatusCrash}},
		{name: "segfault", program: "import faulthandler\ndef run():\n    faulthandler._sigsegv()\n    return True\n", allowed: []corpus.Status{corpus.StatusCrash}},
		{name: "unbounded recursion", program: "import sys\nsys.setrecursionlimit(10 ** 8)\ndef r(n):\n    return r(n + 1) + 1\ndef run():\n    return r(0)\n", allowed: []corpus.Status{corpus.StatusCrash, corpus.StatusOK, corpus.StatusTimeout}},
		{name: "thread spam", program: "import threading, time\ndef run():\n    for _ in range(100000):\n        threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n    return True\n", allowed: []corpus.Status{corpus.StatusOK, corpus.StatusCrash}},
		{name: "closes its fds", program: "import os\ndef run():\n    for fd in range(3, 256):\n        try:\n            os.close(fd)\n        except OSError:\n            pass\n    return True\n", allowed: any, solved: true},
	}
	ref := "def run():\n    return True\n"
	for _, hc := range cases {
		t.Run("Adversarial "+hc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), limit+10*time.Second)
			defer cancel()
			tests := hc.tests
			if tests == "" {
				tests = hostileTests()
			}
			start := time.Now()
			ex, err := p.Run(ctx, hc.program, tests)
			elapsed := time.Since(start)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if elapsed > limit+2*time.Second {
				t.Errorf("verdict after %v, limit %v + 2s", elapsed, limit)
			}
			if !slices.Contains(hc.allowed, ex.Status) {
				t.Errorf("status %s, want one of %v; feedback:\n%s", ex.Status, hc.allowed, ex.Feedback)
			}
			if ex.Solved() && !hc.solved {
				t.Errorf("hostile program solved its tests; feedback:\n%s", ex.Feedback)
			}
			// No process left: only the (possibly restarted) worker in its cgroup
			// (or below it), and nothing anywhere running as the sandbox uid.
			checkOnlyTheWorker(t, s)
			if left := processesOfUID(runHostUID(s, advUIDBase)); len(left) > 0 {
				t.Errorf("processes left as uid %d: %v", runHostUID(s, advUIDBase), left)
			}
			// Nothing changed outside.
			if b, err := os.ReadFile(keep); err != nil || string(b) != "keep" {
				t.Errorf("file outside the sandbox changed: %q %v", b, err)
			}
			for _, path := range []string{filepath.Join(outside, "pwned"), stray, "/etc/triage-pwned", "/usr/triage-pwned", "/dev/shm/triage-pwned", "/var/tmp/triage-pwned"} {
				if _, err := os.Stat(path); err == nil {
					t.Errorf("hostile program created %s", path)
					os.Remove(path)
				}
			}
			select {
			case <-accepted:
				t.Error("hostile program reached a listener of the host network")
			default:
			}
			if strings.Contains(ex.Feedback, "TOPSECRET") {
				t.Error("secret from the home folder leaked into the feedback")
			}
			// The next run still works.
			next, err := p.Run(ctx, ref, hostileTests())
			if err != nil || !next.Solved() {
				t.Fatalf("next run: err %v, status %s, feedback:\n%s", err, next.Status, next.Feedback)
			}
		})
	}
}

// processesOfUID lists pids of processes whose real uid is uid.
func processesOfUID(uid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	want := strconv.Itoa(uid)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "Uid:") {
				f := strings.Fields(line)
				if len(f) > 1 && f[1] == want {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}

// onlyTheWorker reports whether procs (a worker cgroup's processes) is the
// slot's worker alone, or the worker and its fork server (the worker's one
// child, where its hello says it forks through one) and at most one judge
// the server keeps (its child, with the worker's uid). Anything a run left
// behind is another process, or a child of the server with another uid.
func onlyTheWorker(s *slot, procs []int) bool {
	pid := s.w.cmd.Process.Pid
	var server, judges int
	for _, p := range procs {
		switch {
		case p == pid:
		case s.w.hello.ForkServer && parentPID(p) == pid:
			server++
		default:
			// A judge the fork server keeps for the next run of its test
			// file (keep.py): the worker's uid, never the program's.
			if pp := parentPID(p); pp <= 0 || parentPID(pp) != pid || procUID(p) != procUID(pid) {
				return false
			}
			judges++
		}
	}
	return len(procs) == 1+server+judges && server <= 1 && judges <= server
}

// procUID is pid's real uid from /proc, or -1.
func procUID(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			if n, err := strconv.Atoi(f[1]); err == nil {
				return n
			}
		}
	}
	return -1
}

// parentPID is pid's parent process id from /proc, or -1.
func parentPID(pid int) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return -1
	}
	// The command name is in parentheses and may hold spaces: fields follow the last ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return -1
	}
	return ppid
}
