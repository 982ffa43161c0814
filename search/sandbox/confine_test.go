package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// seccompProbe loads confine.py, forks a child per case, installs the
// worker's filter (and, for the signal case, the run's second filter) and
// reports the errno of each system call the sandbox never needs, next to a
// child without the filter (which shows the calls work here otherwise).
const seccompProbe = `
import ctypes, errno, json, os, signal, sys
ns = {"__name__": "confine"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000

def calls():
    return {
        "unshare(CLONE_NEWUSER)": lambda: libc.unshare(CLONE_NEWUSER),
        "unshare(CLONE_NEWNS)": lambda: libc.unshare(CLONE_NEWNS),
        "ptrace": lambda: libc.ptrace(3, 999999999, None, None),
        "bpf": lambda: libc.syscall(321, 0, None, 0),
        "mount": lambda: libc.mount(b"none", b"/mnt", b"tmpfs", 0, None),
        "keyctl": lambda: libc.syscall(250, 0, 0, 0, 0, 0),
        "personality": lambda: libc.personality(0),
        "signal handler": lambda: (signal.signal(signal.SIGUSR1, lambda *a: None), 0)[1],
    }

def probe(worker_filter, run_filter):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        out = {}
        try:
            inst = ns["FilterInstaller"]()
            if worker_filter:
                inst.install(inst.prepare(ns["seccomp_filter"]()))
            if run_filter:
                inst.install(inst.prepare(ns["no_signal_handlers_filter"]()))
            for name, call in calls().items():
                ctypes.set_errno(0)
                try:
                    rc = call()
                    out[name] = "ok" if rc in (0, None) or (isinstance(rc, int) and rc >= 0) else errno.errorcode.get(ctypes.get_errno(), "?")
                except OSError as e:
                    out[name] = errno.errorcode.get(e.errno, "?")
            child = os.fork()
            if child == 0:
                os._exit(7)
            out["fork"] = "ok" if os.waitpid(child, 0)[1] >> 8 == 7 else "broken"
        except Exception as e:
            out["error"] = repr(e)
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.waitpid(pid, 0)
    return json.loads(data)

print(json.dumps({"none": probe(False, False), "worker": probe(True, False), "run": probe(True, True)}))
`

// TestSeccompFilter checks the BPF programs of confine.py on this kernel.
func TestSeccompFilter(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	if os.Geteuid() != 0 {
		t.Skip("unshare and mount succeed without a filter only as root")
	}
	out, err := exec.Command(DefaultOptions().Python, "-c", seccompProbe, "confine.py").CombinedOutput()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, out)
	}
	var got map[string]map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("probe output %q: %v", out, err)
	}
	t.Logf("without filter: %v", got["none"])
	for _, name := range []string{"unshare(CLONE_NEWUSER)", "unshare(CLONE_NEWNS)", "ptrace", "bpf", "mount", "keyctl", "personality"} {
		if got["worker"][name] != "EPERM" {
			t.Errorf("%s under the worker filter: %q, want EPERM", name, got["worker"][name])
		}
		if got["none"][name] == "EPERM" {
			t.Errorf("%s fails without the filter (%q): the check proves nothing", name, got["none"][name])
		}
	}
	if got["none"]["unshare(CLONE_NEWUSER)"] != "ok" {
		t.Errorf("unshare(CLONE_NEWUSER) without the filter: %q, want ok", got["none"]["unshare(CLONE_NEWUSER)"])
	}
	for _, side := range []string{"none", "worker", "run"} {
		if got[side]["fork"] != "ok" || got[side]["error"] != "" {
			t.Errorf("%s: fork %q error %q", side, got[side]["fork"], got[side]["error"])
		}
	}
	if got["worker"]["signal handler"] != "ok" || got["run"]["signal handler"] != "EPERM" {
		t.Errorf("signal handler: worker %q run %q, want ok and EPERM", got["worker"]["signal handler"], got["run"]["signal handler"])
	}
}

// TestSandboxCannotSeeHost runs a program that looks for the task file, the
// repository, the test binary and the host's folders from inside the
// sandbox: none may exist there, and its root holds only the allowlist.
func TestSandboxCannotSeeHost(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	if os.Geteuid() != 0 {
		t.Skip("the mount allowlist needs root")
	}
	p := testPool(t)
	if !slices.Contains(p.Protections(), "mount-allowlist") {
		t.Skipf("no mount allowlist here: %v", p.Protections())
	}
	taskFile := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(taskFile, []byte(`{"task_id":"x","solution":"secret"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	repo := filepath.Dir(filepath.Dir(wd))
	bin, _ := os.Executable()
	home, _ := os.UserHomeDir()
	paths := []string{taskFile, filepath.Dir(taskFile), wd, repo, filepath.Join(repo, "go.mod"), bin, filepath.Dir(bin),
		"/work", "/root", "/home", "/etc/shadow", "/etc/hostname", "/usr/local/go", "/var", "/sys", "/run", "/opt", p.dir}
	if home != "" {
		paths = append(paths, home)
	}
	for _, path := range paths {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s does not exist on the host, the check would prove nothing", path)
		}
	}
	var list strings.Builder
	for _, path := range paths {
		fmt.Fprintf(&list, "    %q,\n", path)
	}
	program := "import os\n\nPATHS = [\n" + list.String() + "]\n\n" + `def visible():
    found = []
    for p in PATHS:
        if os.path.lexists(p):
            found.append(p)
        try:
            with open(p, "rb") as f:
                f.read(1)
            found.append(p + " (read)")
        except OSError:
            pass
    return found

def root():
    return sorted(os.listdir("/"))

def python_works():
    return os.path.exists(os.__file__)
`
	tests := `from solution import visible, root, python_works

def test_nothing_of_the_host():
    assert visible() == []

def test_root_is_the_allowlist():
    assert set(root()) <= {"bin", "dev", "etc", "lib", "lib64", "sandbox", "tmp", "usr"}

def test_python_is_there():
    assert python_works()
`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ex, err := p.Run(ctx, program, tests)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Solved() {
		t.Fatalf("the sandbox sees the host: status %s\n%s", ex.Status, ex.Feedback)
	}
}

// TestWorkerFilterInForce reads the worker's seccomp state from the host.
func TestWorkerFilterInForce(t *testing.T) {
	p := testPool(t)
	if !slices.Contains(p.Protections(), "seccomp") {
		t.Skipf("no seccomp here: %v", p.Protections())
	}
	if _, err := p.Run(context.Background(), "def f():\n    return 1\n", "from solution import f\ndef test_f():\n    assert f() == 1\n"); err != nil {
		t.Fatal(err)
	}
	s := <-p.slots
	defer func() { p.slots <- s }()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.w.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Seccomp:\t2", "NoNewPrivs:\t1"} {
		if !strings.Contains(string(status), want) {
			t.Errorf("worker status lacks %q", want)
		}
	}
}
