package sandbox

import (
	"bufio"
	"embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The worker and the harness files it imports (README.md: the judge and
// the program process of a run, the fork server, the values that cross).
//
//go:embed worker.py confine.py direct.py failtext.py forkserver.py frames.py harness.py judge.py keep.py program.py runs.py testids.py watch.py wire.py
var workerFiles embed.FS

// workerFileNames lists the embedded files, worker.py first.
var workerFileNames = []string{"worker.py", "confine.py", "direct.py", "failtext.py", "forkserver.py", "frames.py", "harness.py",
	"judge.py", "keep.py", "program.py", "runs.py", "testids.py", "watch.py", "wire.py"}

// maxFrame bounds one protocol message from a worker.
const maxFrame = 64 << 20

// wireLimits are the per-run rlimits the worker's child sets.
type wireLimits struct {
	CPUSeconds int   `json:"cpu_s"`
	ASBytes    int64 `json:"as_bytes"`
	NProc      int   `json:"nproc"`
	FSize      int64 `json:"fsize"`
	NoFile     int   `json:"nofile"`
}

// Request kinds: a run, and a collection of the test file with a stand-in
// for the program.
const (
	kindRun     = "run"
	kindCollect = "collect"
)

// wireRequest is one request to a worker.
type wireRequest struct {
	ID        uint64  `json:"id"`
	Kind      string  `json:"kind"`
	Program   string  `json:"program"`
	Tests     string  `json:"tests"`
	TimeoutS  float64 `json:"timeout_s"`
	CPULimitS float64 `json:"cpu_limit_s,omitempty"`
	// ProgramCPULimitS is the program's own budget (runs only; with CPULimitS).
	ProgramCPULimitS float64 `json:"program_cpu_limit_s,omitempty"`
	Phases           bool    `json:"phases,omitempty"` // the child reports its CPU by phase (benchmarks)
	// OwnCPU asks the program process to count its own code's CPU
	// (a trusted reference's run, RunOptions.SplitCPU).
	OwnCPU   bool       `json:"own_cpu,omitempty"`
	Coverage bool       `json:"coverage"`
	TextCap  int        `json:"text_cap"`
	Limits   wireLimits `json:"limits"`
	// IDs are the test file's reference ids (runs whose expectation is
	// known): with them the worker may run a plain file's tests directly,
	// without pytest's collection (make_direct_runner in worker.py).
	IDs []string `json:"ids,omitempty"`
}

// wireEvent is one line the run's judge streamed back.
type wireEvent struct {
	T           string   `json:"t"` // collected, collect_error, test, internal, stub_touched, program_ended, done
	Names       []string `json:"names,omitempty"`
	NodeID      string   `json:"nodeid,omitempty"`
	Name        string   `json:"name,omitempty"`
	Passed      bool     `json:"passed,omitempty"`
	DurMS       float64  `json:"dur_ms,omitempty"`
	Msg         string   `json:"msg,omitempty"`
	Text        string   `json:"text,omitempty"`
	Lines       []int32  `json:"lines,omitempty"`
	Exit        *int     `json:"exit,omitempty"`
	OutputLimit bool     `json:"output_limit,omitempty"`
	Why         string   `json:"why,omitempty"` // fallback, pytest_runs: why the direct runner stopped
	// Phases is the judge's CPU by phase in ms (done; benchmarks only).
	Phases map[string]float64 `json:"phases,omitempty"`
	// ProgramOwnMS is the program process's count of its own code's CPU
	// (done, of runs with OwnCPU: a reference's, whose figure is trusted).
	ProgramOwnMS float64 `json:"program_own_ms,omitempty"`
}

// wireResponse is a worker's answer to one request (or its hello).
type wireResponse struct {
	T           string      `json:"t,omitempty"` // "hello" for the first message
	ID          uint64      `json:"id"`
	Events      []wireEvent `json:"events"`
	TimedOut    bool        `json:"timed_out"`
	TimeoutKind string      `json:"timeout_kind,omitempty"` // "cpu", "program" or "wall"
	// CPUMS is the run's CPU counted against the CPU limit (the judge's and
	// the program process's, each from its start mark on); SetupCPUMS their
	// CPU before the marks.
	CPUMS float64 `json:"cpu_ms"`
	// ProgramCPUMS is the program process's CPU from its start mark on (its
	// import and every call into it), read by the worker from outside.
	ProgramCPUMS float64 `json:"program_cpu_ms,omitempty"`
	SetupCPUMS   float64 `json:"setup_cpu_ms"`
	Overflow     bool    `json:"overflow"`
	WallMS       float64 `json:"wall_ms"`
	ChildCPUMS   float64 `json:"child_cpu_ms"`  // CPU of the run's judge and program process (not of processes they left)
	ChildMinflt  int     `json:"child_minflt"`  // their minor page faults (copies of the fork server's pages, mostly)
	WorkerCPUMS  float64 `json:"worker_cpu_ms"` // CPU of the worker itself for this run
	Signal       *int    `json:"signal,omitempty"`
	Exit         *int    `json:"exit,omitempty"`
	Error        string  `json:"error,omitempty"`
	// StaticIDs says a collect request was answered from the test file's
	// text (static_test_ids in worker.py), without a child.
	StaticIDs bool `json:"static_ids,omitempty"`
	// Direct says the run's tests were run by the direct runner; Fallback,
	// that it stopped short and pytest ran them again, and why.
	Direct   bool   `json:"direct,omitempty"`
	Fallback string `json:"fallback,omitempty"`
	// KeptJudge: the run went to a judge kept from an earlier run of the
	// same test file (keep.py), not to a fresh one.
	KeptJudge   bool     `json:"kept_judge,omitempty"`
	PID         int      `json:"pid,omitempty"`
	Protections []string `json:"protections,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Python      string   `json:"python,omitempty"`
	// StartupCPUMS is the worker's CPU time per start-up phase (hello only).
	StartupCPUMS map[string]float64 `json:"startup_cpu_ms,omitempty"`
	// ForkServer says the worker forks its runs' processes through a fork
	// server of its own, a second process in its cgroup (hello only).
	ForkServer bool `json:"fork_server,omitempty"`
	// ForkServerHugePages counts the 2 MiB pieces of the fork server's
	// memory the kernel made huge pages at its start (hello only).
	ForkServerHugePages int64 `json:"fork_server_hugepages,omitempty"`

	// memoryKilled is set (the largest memory seen, in bytes) when the
	// sandbox's own memory accounting killed the run (memwatch.go); not
	// part of the protocol.
	memoryKilled int64
}

// readFrame reads one length-prefixed JSON message.
func readFrame(r io.Reader) (wireResponse, error) {
	var resp wireResponse
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return resp, fmt.Errorf("read frame header: %w", err)
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return resp, fmt.Errorf("frame of %d bytes exceeds %d", n, maxFrame)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return resp, fmt.Errorf("read frame body: %w", err)
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return resp, fmt.Errorf("decode frame: %w", err)
	}
	return resp, nil
}

// writeFrame writes one length-prefixed JSON message.
func writeFrame(w io.Writer, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode frame: %w", err)
	}
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// worker is one running worker.py process.
type worker struct {
	cmd     *exec.Cmd
	req     *os.File
	out     chan wireResponse // responses; closed when the pipe ends
	exited  chan struct{}     // closed when the process has been waited for
	stderr  *tailBuffer
	hello   wireResponse
	nsFlags bool // started in new namespaces
}

const nsCloneFlags = syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
	syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS

// workerConfig is what worker.py reads from argv.
type workerConfig struct {
	Workdir string   `json:"workdir"`
	UID     int      `json:"uid"`
	MountNS bool     `json:"mountns"`
	TmpfsMB int      `json:"tmpfs_mb"`
	Hide    []string `json:"hide"`
	Disable []string `json:"disable,omitempty"` // layers switched off (benchmarks only)
}

// startWorker starts worker.py and waits for its hello. When namespaces
// cannot be created (not root) and useNS is set, it retries without them and
// reports that in the returned worker's nsFlags. With uns, the worker
// starts in a user namespace of its own too (see userns.go).
func startWorker(python, script string, cfg workerConfig, useNS bool, uns *userNS, cg *cgroup, helloTimeout time.Duration) (*worker, error) {
	w, err := spawnWorker(python, script, cfg, useNS, uns, cg, helloTimeout)
	if err != nil && useNS && errors.Is(err, syscall.EPERM) {
		cfg.MountNS = false
		return spawnWorker(python, script, cfg, false, nil, cg, helloTimeout)
	}
	return w, err
}

func spawnWorker(python, script string, cfg workerConfig, useNS bool, uns *userNS, cg *cgroup, helloTimeout time.Duration) (*worker, error) {
	cfg.MountNS = cfg.MountNS && useNS
	cfgJSON, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode worker config: %w", err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("request pipe: %w", err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		closeFiles(reqR, reqW)
		return nil, fmt.Errorf("response pipe: %w", err)
	}
	cmd, stderr := workerCommand(python, script, cfgJSON, cfg.Workdir, reqR, respW)
	mapped, wait, err := inNamespaces(cmd, useNS, uns)
	if err != nil {
		closeFiles(reqR, reqW, respR, respW)
		return nil, err
	}
	if mapped != nil {
		defer closeFiles(mapped, wait)
	}
	if err := cmd.Start(); err != nil {
		closeFiles(reqR, reqW, respR, respW)
		return nil, fmt.Errorf("start worker %s: %w", python, err)
	}
	closeFiles(reqR, respW)
	if mapped != nil {
		err := uns.mapIDs(cmd.Process.Pid)
		if err == nil {
			_, err = mapped.Write([]byte("\n"))
		}
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			closeFiles(reqW, respR)
			return nil, fmt.Errorf("%w: %w", errUserNSStart, err)
		}
	}
	w := &worker{cmd: cmd, req: reqW, out: make(chan wireResponse, 1), exited: make(chan struct{}), stderr: stderr, nsFlags: useNS}
	go func() {
		_ = cmd.Wait()
		close(w.exited)
	}()
	// The worker forks nothing before its hello, so joining the cgroup now
	// covers every run.
	if cg != nil {
		if err := cg.add(cmd.Process.Pid); err != nil {
			w.kill()
			respR.Close()
			return nil, fmt.Errorf("join cgroup: %w", err)
		}
	}
	if err := w.awaitHello(respR, helloTimeout); err != nil {
		return nil, err
	}
	return w, nil
}

// closeFiles closes each of fs.
func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// workerCommand is the worker's command line and environment, the request
// pipe's read end and the response pipe's write end as its fds 3 and 4,
// and a buffer of its stderr's tail.
func workerCommand(python, script string, cfgJSON []byte, workdir string, reqR, respW *os.File) (*exec.Cmd, *tailBuffer) {
	// -s and an environment of our own instead of -I, which would ignore
	// PYTHONHASHSEED: with a fixed seed, a program's set and str-keyed hash
	// order is the same in every run and worker, so a verdict that depends
	// on it does not change between runs. worker.py drops its own folder
	// from sys.path first thing (what -I's -P would do).
	cmd := exec.Command(python, "-s", script, string(cfgJSON))
	cmd.Dir = workdir
	cmd.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"LC_ALL=C.UTF-8",
		"HOME=" + workdir,
		"TMPDIR=" + workdir,
		"PYTHONHASHSEED=" + pythonHashSeed,
	}
	cmd.ExtraFiles = []*os.File{reqR, respW}
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stderr = stderr
	return cmd, stderr
}

// inNamespaces sets cmd to start in the workers' namespaces (useNS) and,
// with uns, in a user namespace of its own through the shim, which waits
// for the id maps on a pipe: its read end (wait) is cmd's last extra file;
// the caller writes a line to its write end (mapped) once the maps are set,
// and closes both after the start.
func inNamespaces(cmd *exec.Cmd, useNS bool, uns *userNS) (mapped, wait *os.File, err error) {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.SysProcAttr = attr
	if !useNS {
		return nil, nil, nil
	}
	attr.Cloneflags = nsCloneFlags
	if uns == nil {
		return nil, nil, nil
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	if wait, mapped, err = os.Pipe(); err != nil {
		return nil, nil, fmt.Errorf("id map pipe: %w", err)
	}
	cmd.Args = append([]string{"/bin/sh", "-c", userNSShim}, cmd.Args...)
	cmd.Path = "/bin/sh"
	cmd.ExtraFiles = append(cmd.ExtraFiles, wait)
	return mapped, wait, nil
}

// awaitHello reads the worker's frames from respR into w.out and waits for
// its hello; a worker that says anything else, or nothing in time, is
// killed.
func (w *worker) awaitHello(respR *os.File, helloTimeout time.Duration) error {
	go func() {
		defer close(w.out)
		defer respR.Close()
		br := bufio.NewReaderSize(respR, 1<<16)
		for {
			resp, err := readFrame(br)
			if err != nil {
				return
			}
			w.out <- resp
		}
	}()
	select {
	case hello, ok := <-w.out:
		if !ok || hello.T != "hello" {
			w.kill()
			return fmt.Errorf("worker did not start: %s", strings.TrimSpace(w.stderr.String()))
		}
		w.hello = hello
	case <-time.After(helloTimeout):
		w.kill()
		return fmt.Errorf("%w within %v: %s", errHelloTimeout, helloTimeout, strings.TrimSpace(w.stderr.String()))
	}
	return nil
}

// errHelloTimeout means a worker did not say hello in time: on a loaded
// machine importing pytest can take that long; nothing a program did.
var errHelloTimeout = errors.New("worker did not start")

// errWorkerDied means the worker process ended or stopped answering.
var errWorkerDied = errors.New("sandbox worker died")

// errWorkerDeadline means the worker did not answer within the outer deadline.
var errWorkerDeadline = errors.New("sandbox worker missed its deadline")

// do sends one request and waits for its response, at most deadline.
func (w *worker) do(stop <-chan struct{}, req wireRequest, deadline time.Duration) (wireResponse, error) {
	errc := make(chan error, 1)
	go func() { errc <- writeFrame(w.req, req) }()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		select {
		case err := <-errc:
			if err != nil {
				return wireResponse{}, fmt.Errorf("%w: %v", errWorkerDied, err)
			}
			errc = nil
		case resp, ok := <-w.out:
			if !ok {
				return wireResponse{}, fmt.Errorf("%w: %s", errWorkerDied, lastLine(w.stderr.String()))
			}
			if resp.ID != req.ID {
				continue // a stale answer to an abandoned request
			}
			return resp, nil
		case <-timer.C:
			return wireResponse{}, errWorkerDeadline
		case <-stop:
			return wireResponse{}, errors.New("cancelled")
		}
	}
}

// kill ends the worker and, with it, its pid namespace.
func (w *worker) kill() {
	if w.cmd.Process != nil {
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		_ = w.cmd.Process.Kill()
	}
	w.req.Close()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
	}
}

// close asks the worker to stop (EOF on its request pipe), then kills it.
func (w *worker) close() {
	w.req.Close()
	select {
	case <-w.exited:
	case <-time.After(2 * time.Second):
	}
	w.kill()
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
