package sandbox

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"triage/corpus"
)

// outerGrace is how long past a run's wall limit the pool waits for the
// worker before killing the worker itself (its whole pid namespace).
const outerGrace = 1500 * time.Millisecond

// helloTimeout bounds a worker's start (importing and warming pytest).
const helloTimeout = 60 * time.Second

// restartAttempts is how many times a slot's worker is started again,
// each time allowed twice as long, before a run fails: a build that lasts
// hours must not end because the machine was busy for a minute.
const restartAttempts = 3

var poolSeq atomic.Int64

// Pool runs programs against pytest files on warm, isolated workers. It
// implements corpus.Executor and is safe for concurrent use; at most
// Options.Workers runs proceed at once.
type Pool struct {
	opts   Options
	dir    string
	script string
	slots  chan *slot
	all    []*slot
	nextID atomic.Uint64
	busy   atomic.Int64 // nanoseconds slots were held

	mu          sync.Mutex
	protections map[string]bool
	closed      bool

	expMu       sync.Mutex
	expected    map[[32]byte]expectation
	expFlight   map[[32]byte]chan struct{} // collections in flight, closed when done
	collects    atomic.Int64               // collections asked for (reference ids)
	staticIDs   atomic.Int64               // of them, answered from the test file's text
	forkServers atomic.Int64               // worker starts that forked through a fork server
	hugePages   atomic.Int64               // 2 MiB huge pages the fork servers of those starts made
	direct      atomic.Int64               // runs the direct runner answered
	fallbacks   atomic.Int64               // runs it handed back to pytest
	keptRuns    atomic.Int64               // runs a judge kept from an earlier run took

	phases cpuPhases // CPU by phase, when opts.phases (Bench)

	hello time.Duration // a worker's first start timeout (helloTimeout; tests shorten it)

	// uns gives each worker a user namespace of its own (an account
	// without privilege with subordinate ids; userns.go), or is nil.
	uns *userNS
}

// slot is one worker position: its cgroup, work dir, uid and current process.
type slot struct {
	idx     int
	workdir string
	uid     int // the uid runs drop to, as the worker sees it (-1: none)
	// hostUID is that uid as this process sees it, when the sandbox's own
	// memory accounting watches the runs (no memory cgroup); else -1.
	hostUID int
	cg      *cgroup
	w       *worker
	// lastTests is the hash of the test file of the slot's last run: its
	// worker may keep that run's judge for the next run of the same file.
	lastTests [32]byte
}

// New starts a pool of opts.Workers warm workers. It fails when the
// interpreter or pytest is missing; isolation layers that cannot be set up
// are logged with slog.Warn and left out (see Protections).
func New(opts Options) (*Pool, error) {
	opts = opts.withDefaults()
	dir, err := poolDir(opts)
	if err != nil {
		return nil, err
	}
	p := &Pool{opts: opts, dir: dir, script: filepath.Join(dir, "worker.py"),
		slots: make(chan *slot, opts.Workers), protections: map[string]bool{}, expected: map[[32]byte]expectation{},
		expFlight: map[[32]byte]chan struct{}{},
		hello:     helloTimeout}
	warned, err := p.makeSlots()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Without the cgroups, the limits can still hold without them (a run's
	// own uid, rlimits and the memory accounting inside the namespaces): that
	// is checked on the workers' hello below.
	namespaced := !opts.NoIsolation && p.all[0].hostUID >= 0
	if !opts.NoIsolation && !namespaced {
		if err := checkLimits(opts.Limits, p.all[0].cg, warned); err != nil {
			p.removeCgroups()
			os.RemoveAll(dir)
			return nil, err
		}
	}
	for _, w := range warned {
		slog.Warn("sandbox: isolation layer unavailable", "detail", w)
	}
	namespaced, err = p.startWorkers(namespaced, warned)
	if err != nil {
		return nil, err
	}
	if namespaced {
		if err := checkNamespacedLimits(opts.Limits, p.all[0].cg, p.Protections(), warned); err != nil {
			p.Close()
			return nil, err
		}
	}
	prot := p.Protections()
	slog.Debug("sandbox pool started", "workers", opts.Workers, "protections", prot)
	return p, nil
}

// poolDir makes the pool's folder (under opts.Dir or the temp dir, after
// sweeping what crashed pools left there) and writes the worker's files.
func poolDir(opts Options) (string, error) {
	base := opts.Dir
	if base == "" {
		base = os.TempDir()
	}
	if !opts.NoIsolation {
		sweepStale(base)
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("triage-sandbox-%d-", os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("sandbox dir: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("sandbox dir: %w", err)
	}
	for _, name := range workerFileNames {
		data, err := workerFiles.ReadFile(name)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
		if err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("write worker: %w", err)
		}
	}
	return dir, nil
}

// makeSlots makes each worker's slot: its folder, its runs' uid and, with
// isolation, its cgroup (or, without a memory cgroup, the uid outside the
// user namespace that the memory accounting watches). It returns the
// layers that could not be had, as warnings.
func (p *Pool) makeSlots() ([]string, error) {
	opts := &p.opts
	seq := poolSeq.Add(1)
	var warned []string
	ids, err := p.runUIDs(seq)
	if errors.Is(err, errBadUIDBase) {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err != nil {
		warned = append(warned, fmt.Sprintf("uid per run: %v", err))
	}
	cgName := filepath.Join("triage-sandbox", fmt.Sprintf("%d-%d", os.Getpid(), seq))
	for i := 0; i < opts.Workers; i++ {
		s := &slot{idx: i, workdir: filepath.Join(p.dir, "w"+strconv.Itoa(i)), uid: -1, hostUID: -1}
		if err := os.Mkdir(s.workdir, 0o700); err != nil {
			p.removeCgroups()
			return nil, fmt.Errorf("worker dir: %w", err)
		}
		if ids != nil {
			s.uid = opts.UIDBase + i
		}
		if !opts.NoIsolation {
			cg, warn := newCgroup(filepath.Join(cgName, "w"+strconv.Itoa(i)), memLimitBytes(*opts), opts.MaxProcs)
			s.cg = cg
			if i == 0 {
				warned = append(warned, warn...)
			}
			if cg.memory == "" && s.uid >= 0 && childrenFilesWork() {
				s.hostUID = ids(s.uid)
			}
		}
		p.all = append(p.all, s)
	}
	return warned, nil
}

// startWorkers starts every worker concurrently and hands out the slots; a
// start failure is fatal (the pool is closed), but for user namespaces that
// cannot be made here (newuidmap refused, say): then the workers start as
// they did without them, if the limits policy allows. It returns whether
// the workers run in namespaces of their own.
func (p *Pool) startWorkers(namespaced bool, warned []string) (bool, error) {
	err := p.startAll()
	if err != nil && errors.Is(err, errUserNSStart) {
		slog.Warn("sandbox: workers cannot start in user namespaces of their own", "err", err)
		p.uns = nil
		for _, s := range p.all {
			if s.w != nil {
				s.w.close()
				s.w = nil
			}
			s.uid, s.hostUID = -1, -1
		}
		if namespaced {
			namespaced = false
			warned = append(warned, err.Error())
			if lerr := checkLimits(p.opts.Limits, p.all[0].cg, warned); lerr != nil {
				p.removeCgroups()
				os.RemoveAll(p.dir)
				return false, lerr
			}
		}
		err = p.startAll()
	}
	for _, s := range p.all {
		p.slots <- s
	}
	if err != nil {
		p.Close()
		return false, err
	}
	return namespaced, nil
}

// startAll starts every slot's worker at once.
func (p *Pool) startAll() error {
	errs := make([]error, len(p.all))
	var wg sync.WaitGroup
	for i, s := range p.all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.startWithin(s, p.hello)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// restart starts the worker of slot s again after it was killed, retrying
// a start that timed out with twice the time, restartAttempts times.
func (p *Pool) restart(ctx context.Context, s *slot) error {
	timeout := p.hello
	for attempt := 1; ; attempt++ {
		err := p.startWithin(s, timeout)
		if err == nil || !errors.Is(err, errHelloTimeout) || attempt == restartAttempts || ctx.Err() != nil {
			return err
		}
		slog.Warn("sandbox: worker start timed out; retrying", "worker", s.idx, "attempt", attempt, "next_timeout", 2*timeout)
		timeout *= 2
	}
}

// startWithin starts (or starts again) the worker of slot s, waiting at
// most timeout for its hello.
func (p *Pool) startWithin(s *slot, timeout time.Duration) error {
	if s.cg != nil {
		s.cg.killAll(2 * time.Second)
	}
	if err := clearDir(s.workdir); err != nil {
		return err
	}
	hide := []string{"/root", "/home"}
	if h, err := os.UserHomeDir(); err == nil && h != "/" {
		hide = append(hide, h)
	}
	cfg := workerConfig{Workdir: s.workdir, UID: s.uid, MountNS: !p.opts.NoIsolation, TmpfsMB: p.opts.TmpfsMB, Hide: dedupe(hide),
		Disable: p.opts.disabled.workerLayers()}
	w, err := startWorker(p.opts.Python, p.script, cfg, !p.opts.NoIsolation, p.uns, s.cg, timeout)
	if err != nil {
		return fmt.Errorf("sandbox worker %d: %w", s.idx, err)
	}
	s.w = w
	if w.hello.ForkServer {
		p.forkServers.Add(1)
		p.hugePages.Add(w.hello.ForkServerHugePages)
	}
	if p.opts.phases {
		p.phases.startup(w.hello)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	first := len(p.protections) == 0
	if first {
		for _, warn := range w.hello.Warnings {
			slog.Warn("sandbox: isolation layer unavailable", "detail", warn)
		}
		if !w.nsFlags && !p.opts.NoIsolation {
			slog.Warn("sandbox: could not create namespaces; running without net/mount/pid isolation")
		}
	}
	set := map[string]bool{"wall-timeout": true, "output-cap": true}
	for _, pr := range w.hello.Protections {
		set[pr] = true
	}
	if p.opts.disabled[layerReferenceIDs] {
		delete(set, "reference-ids")
	}
	if w.nsFlags {
		set["netns"], set["ipcns"], set["utsns"], set["mountns"] = true, true, true, true
		if p.uns != nil {
			set["userns"] = true
		}
	}
	if s.hostUID >= 0 && set["uid-drop"] {
		set["memory-accounting"] = true
	}
	if s.cg != nil && s.cg.pids != "" {
		set["cgroup-pids"] = true
	}
	if s.cg != nil && s.cg.memory != "" {
		set["cgroup-memory"] = true
	}
	if first && !p.opts.NoIsolation {
		var missing []string
		for _, want := range fullProtections {
			if !set[want] && !(set["memory-accounting"] && slices.Contains(cgroupLimits, want)) {
				missing = append(missing, want)
			}
		}
		if len(missing) > 0 {
			slog.Warn("sandbox: running without some protections", "missing", missing)
		}
	}
	p.protections = set
	return nil
}

// fullProtections are the layers a pool has as root on a Linux x86-64 host
// with cgroup v1 (see Protections).
var fullProtections = []string{"netns", "mountns", "pidns", "ipcns", "utsns", "mount-allowlist", "readonly-root",
	"private-tmpfs", "uid-drop", "rlimits", "seccomp", "no-new-privs", "cgroup-pids", "cgroup-memory",
	"two-process", "fork-server", "reference-ids", "wall-timeout", "output-cap"}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("clear %s: %w", dir, err)
		}
	}
	return nil
}

// Protections lists the layers in force, sorted. Isolation: netns, mountns,
// pidns, ipcns, utsns, mount-allowlist (the new root of doc.go; without it
// the host tree is visible read-only), readonly-root, private-tmpfs,
// uid-drop, rlimits, seccomp, no-new-privs, cgroup-pids, cgroup-memory,
// wall-timeout, output-cap. Verdict integrity: two-process (the test file
// and pytest run in a judge process that never runs the program's code;
// values cross as data), fork-server (every program process starts as a
// copy of a process that never held a test file or another program),
// reference-ids. A layer that could not be set up
// is missing here and was logged with slog.Warn.
func (p *Pool) Protections() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.protections))
	for k := range p.protections {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Options returns the options the pool runs with, defaults filled in.
func (p *Pool) Options() Options { return p.opts }

// Run saves program as solution.py and tests as test_solution.py and runs
// them on a warm worker: pytest and the tests in a fresh judge process, the
// program in a fresh isolated process of its own, only data crossing
// between them (README.md); it returns the verdicts. A run whose test ids
// differ from the test file's own has status tamper. A failing, hanging or
// crashing program is data in the Execution; the error is for cancellation
// and for workers that cannot be (re)started.
func (p *Pool) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	return p.run(ctx, program, tests, p.opts)
}

// RunWith is Run with this run's time limits (zero: the pool's) and
// coverage choice in place of the pool's, and with the program's share of
// the counted CPU (Execution.ProgramCPUMS) when ro.SplitCPU asks; it implements
// corpus.OptionsExecutor, so a corpus build gives each task its own limit
// and collects coverage only where a proposer reads it.
func (p *Pool) RunWith(ctx context.Context, program, tests string, ro corpus.RunOptions) (corpus.Execution, error) {
	o := p.opts
	if ro.Timeout > 0 {
		o.Timeout = ro.Timeout
	}
	if ro.CPU > 0 {
		o.CPULimit = ro.CPU
		o.ProgramCPULimit = ro.ProgramCPU
	}
	o.Coverage = ro.Coverage
	o.phases = o.phases || ro.SplitCPU
	o.ownCPU = ro.SplitCPU
	return p.run(ctx, program, tests, o)
}

// BusyTime is the time the pool's slots were held by runs, in all; it
// implements corpus.BusyReporter, so a build can tell idle workers from
// per-run overhead.
func (p *Pool) BusyTime() time.Duration { return time.Duration(p.busy.Load()) }

// ProcessCPUSeconds is the CPU time of this process and of its children
// that have been waited for (a pool's workers, with the runs they reaped,
// once the pool is closed): what a benchmark divides by its work to get a
// figure that does not depend on what else the machine runs.
func ProcessCPUSeconds() float64 { return cpuSeconds() }

func (p *Pool) run(ctx context.Context, program, tests string, o Options) (corpus.Execution, error) {
	testsKey := sha256.Sum256([]byte(tests))
	s, err := p.acquire(ctx, testsKey)
	if err != nil {
		return corpus.Execution{}, err
	}
	held := time.Now()
	defer func() {
		s.lastTests = testsKey
		p.busy.Add(int64(time.Since(held)))
		p.slots <- s
	}()
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return corpus.Execution{}, errors.New("sandbox pool is closed")
	}
	exp, err := p.expectationFor(ctx, s, tests)
	if err != nil {
		return corpus.Execution{}, err
	}
	req := p.request(kindRun, program, tests, o)
	if exp.known && !p.opts.disabled[layerDirect] {
		req.IDs = exp.ids
	}
	resp, failed, err := p.exchange(ctx, s, req, o)
	if err != nil {
		return corpus.Execution{}, err
	}
	if resp.KeptJudge {
		p.keptRuns.Add(1)
	}
	if resp.Fallback != "" {
		p.fallbacks.Add(1)
	} else if resp.Direct {
		p.direct.Add(1)
	}
	if failed != nil {
		return *failed, nil
	}
	return buildExecution(resp, o, exp), nil
}

// acquire takes a free slot, preferring one whose last run had the same
// test file (testsKey): its worker's fork server may have kept that run's
// judge, which the next run of the file then takes without a fork. Builds
// grow several tasks' trees at once, so without the preference a task's
// runs would alternate between workers and find their judge gone.
func (p *Pool) acquire(ctx context.Context, testsKey [32]byte) (*slot, error) {
	var s *slot
	select {
	case s = <-p.slots:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if s.lastTests == testsKey {
		return s, nil
	}
	var passed []*slot
	for range cap(p.slots) - 1 {
		var o *slot
		select {
		case o = <-p.slots:
		default:
		}
		if o == nil {
			break
		}
		if o.lastTests == testsKey {
			passed = append(passed, s)
			s = o
			break
		}
		passed = append(passed, o)
	}
	for _, o := range passed {
		p.slots <- o
	}
	return s, nil
}

// request builds a request of the given kind with o's limits.
func (p *Pool) request(kind, program, tests string, o Options) wireRequest {
	return wireRequest{
		ID:               p.nextID.Add(1),
		Kind:             kind,
		Program:          program,
		Tests:            tests,
		TimeoutS:         o.Timeout.Seconds(),
		CPULimitS:        o.CPULimit.Seconds(),
		ProgramCPULimitS: programLimit(kind, o).Seconds(),
		Phases:           o.phases,
		OwnCPU:           o.ownCPU && kind == kindRun,
		Coverage:         o.Coverage && kind == kindRun,
		TextCap:          4 * o.FeedbackChars,
		Limits: wireLimits{
			CPUSeconds: rlimitCPU(o),
			ASBytes:    int64(o.MemoryMB) << 20,
			NProc:      o.MaxProcs,
			FSize:      o.OutputBytes,
			NoFile:     256,
		},
	}
}

// programLimit is the program's own CPU budget of a request: for runs only
// (the collection has none), with a CPU limit, and only where it is below
// that limit.
func programLimit(kind string, o Options) time.Duration {
	if kind != kindRun || o.CPULimit <= 0 || o.ProgramCPULimit <= 0 || o.ProgramCPULimit >= o.CPULimit {
		return 0
	}
	return o.ProgramCPULimit
}

// rlimitCPU is the CPU-time rlimit of each process of a run, in whole
// seconds: the wall limit rounded up, or with a CPU limit that limit rounded
// up plus a second, so that the worker's own count (to the millisecond)
// always decides the verdict and the rlimit stops only processes the run
// left behind.
func rlimitCPU(o Options) int {
	if o.CPULimit > 0 {
		return int(math.Ceil(o.CPULimit.Seconds())) + 1
	}
	return int(math.Ceil(o.Timeout.Seconds()))
}

// exchange sends req to the worker of slot s (starting it if needed). When
// the worker dies or misses its deadline it is killed (the next use starts a
// fresh one) and failed is the Execution that reports it; err is for
// cancellation and workers that cannot be started. o gives the deadline.
func (p *Pool) exchange(ctx context.Context, s *slot, req wireRequest, o Options) (resp wireResponse, failed *corpus.Execution, err error) {
	if s.w == nil {
		if err := p.restart(ctx, s); err != nil {
			return resp, nil, err
		}
	}
	start := time.Now()
	var mw *memWatch
	if s.hostUID >= 0 {
		mw = watchMemory(s.w.cmd.Process.Pid, s.hostUID, memLimitBytes(p.opts))
	}
	resp, err = s.w.do(ctx.Done(), req, o.Timeout+outerGrace)
	if mw != nil {
		if killed, peak := mw.stop(); killed {
			resp.memoryKilled = peak
		}
	}
	if err != nil {
		// The worker is in an unknown state: end it (and its namespace);
		// the next run on this slot starts a fresh one.
		s.w.kill()
		if s.cg != nil {
			s.cg.killAll(time.Second)
		}
		s.w = nil
		if ctx.Err() != nil {
			return resp, nil, ctx.Err()
		}
		ms := float64(time.Since(start).Microseconds()) / 1000
		var ex corpus.Execution
		if errors.Is(err, errWorkerDeadline) {
			ex = failedExecution(corpus.StatusTimeout, fmt.Sprintf("TIMEOUT: the run did not finish within %v (worker killed)", o.Timeout), ms)
		} else {
			ex = failedExecution(corpus.StatusCrash, fmt.Sprintf("CRASH: the test process died: %v", err), ms)
		}
		return resp, &ex, nil
	}
	if resp.Error != "" {
		s.w.kill()
		s.w = nil
		return resp, nil, fmt.Errorf("sandbox worker: %s", resp.Error)
	}
	if p.opts.phases {
		p.phases.add(req.Kind, resp)
	}
	return resp, nil, nil
}

// Close stops every worker and removes the pool's folders and cgroups.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	// Wait for runs in flight (each is bounded by its deadline), then stop.
	held := make([]*slot, 0, len(p.all))
	for range p.all {
		held = append(held, <-p.slots)
	}
	defer func() {
		for _, s := range held {
			p.slots <- s
		}
	}()
	var errs []error
	for _, s := range p.all {
		if s.w != nil {
			s.w.close()
			s.w = nil
		}
		if s.cg != nil {
			if err := s.cg.remove(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(p.all) > 0 && p.all[0].cg != nil {
		for _, dir := range []string{p.all[0].cg.pids, p.all[0].cg.memory} {
			if dir != "" {
				_ = os.Remove(filepath.Dir(dir)) // the pool's folder; the shared parent stays
			}
		}
	}
	if err := os.RemoveAll(p.dir); err != nil {
		errs = append(errs, fmt.Errorf("remove sandbox dir: %w", err))
	}
	return errors.Join(errs...)
}

// failedExecution is the result of a run that produced no test reports.
func failedExecution(status corpus.Status, feedback string, ms float64) corpus.Execution {
	return corpus.Execution{Status: status, Tests: []corpus.TestResult{}, PassRate: 0, FailedFrac: 1, Feedback: feedback, DurationMS: ms}
}
