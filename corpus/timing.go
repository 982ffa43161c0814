package corpus

import (
	"context"
	"sort"
	"sync"
	"time"
)

// RunTime counts runs and the seconds they took.
type RunTime struct {
	Runs    int64   `json:"runs"`
	Seconds float64 `json:"seconds"`
}

func (r *RunTime) add(o RunTime) { r.Runs += o.Runs; r.Seconds += o.Seconds }

// Breakdown says where a build's time went. Stage seconds are summed over
// concurrent calls, so together they exceed the wall time; the executor
// figures are in slot-seconds (Slots sandbox workers × wall).
type Breakdown struct {
	WallSeconds float64 `json:"wall_seconds"`
	Slots       int     `json:"executor_slots"`
	Nodes       int64   `json:"nodes"`
	Trees       int64   `json:"trees"`
	// Validate is the wall time of the input checks before any tree.
	ValidateSeconds float64 `json:"validate_seconds"`
	// Roots is the time spent making roots (RootsFunc), summed over tasks.
	RootsSeconds float64 `json:"roots_seconds"`
	// Runs by phase: the input checks (references and shipped roots, and
	// the reference's second timing when a task starts), root making and
	// the trees.
	CheckRuns RunTime `json:"check_runs"`
	RootRuns  RunTime `json:"root_runs"`
	TreeRuns  RunTime `json:"tree_runs"`
	// Propose and Revise are the proposer's calls.
	Propose RunTime `json:"propose"`
	Revise  RunTime `json:"revise"`
	// Execute counts sandbox runs by status with their run time
	// (Execution.DurationMS); Coverage the runs with per-test coverage
	// among them, and Plain the others.
	Execute   map[Status]*RunTime `json:"execute"`
	Coverage  RunTime             `json:"coverage"`
	Plain     RunTime             `json:"plain"`
	CacheHits int64               `json:"cache_hits"`
	// Write is the time spent writing shards and manifests, off the
	// critical path.
	WriteSeconds float64 `json:"write_seconds"`
	// Busy is the time the executor's slots were held (runs plus their
	// per-run overhead), when the executor reports it; Idle is
	// Slots × wall − busy (or − run time when it does not).
	BusySeconds float64 `json:"executor_busy_seconds,omitempty"`
	IdleSeconds float64 `json:"executor_idle_seconds"`
	Sessions    int     `json:"sessions"`
}

// ExecuteTotal sums Execute over statuses.
func (b *Breakdown) ExecuteTotal() RunTime {
	var t RunTime
	for _, r := range b.Execute {
		t.add(*r)
	}
	return t
}

// Statuses returns the statuses of Execute, most runs first.
func (b *Breakdown) Statuses() []Status {
	out := make([]Status, 0, len(b.Execute))
	for s := range b.Execute {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, c := b.Execute[out[i]], b.Execute[out[j]]
		if a.Runs != c.Runs {
			return a.Runs > c.Runs
		}
		return out[i] < out[j]
	})
	return out
}

// NodesPerSecond is nodes built per wall second.
func (b *Breakdown) NodesPerSecond() float64 {
	if b.WallSeconds <= 0 {
		return 0
	}
	return float64(b.Nodes) / b.WallSeconds
}

// Add accumulates o (another session of the same build) into b.
func (b *Breakdown) Add(o *Breakdown) {
	if o == nil {
		return
	}
	b.WallSeconds += o.WallSeconds
	b.Slots = max(b.Slots, o.Slots)
	b.Nodes += o.Nodes
	b.Trees += o.Trees
	b.ValidateSeconds += o.ValidateSeconds
	b.RootsSeconds += o.RootsSeconds
	b.CheckRuns.add(o.CheckRuns)
	b.RootRuns.add(o.RootRuns)
	b.TreeRuns.add(o.TreeRuns)
	b.Propose.add(o.Propose)
	b.Revise.add(o.Revise)
	if b.Execute == nil {
		b.Execute = map[Status]*RunTime{}
	}
	for s, r := range o.Execute {
		if b.Execute[s] == nil {
			b.Execute[s] = &RunTime{}
		}
		b.Execute[s].add(*r)
	}
	b.Coverage.add(o.Coverage)
	b.Plain.add(o.Plain)
	b.CacheHits += o.CacheHits
	b.WriteSeconds += o.WriteSeconds
	b.BusySeconds += o.BusySeconds
	b.IdleSeconds += o.IdleSeconds
	b.Sessions += o.Sessions
}

// BusyReporter is implemented by executors that report how long their
// slots were held in all (the sandbox pool), so a build can tell idle
// workers from per-run overhead.
type BusyReporter interface {
	BusyTime() time.Duration
}

// meter collects a build session's Breakdown; its wrappers time the
// proposer and the executor.
type meter struct {
	mu     sync.Mutex
	b      Breakdown
	start  time.Time
	busy0  time.Duration
	exec   Executor   // the inner executor, for BusyTime
	before *Breakdown // earlier sessions of the same build
}

func newMeter(exec Executor, slots int) *meter {
	m := &meter{start: time.Now(), exec: exec}
	m.b.Slots = slots
	m.b.Execute = map[Status]*RunTime{}
	m.b.Sessions = 1
	if br, ok := exec.(BusyReporter); ok {
		m.busy0 = br.BusyTime()
	}
	return m
}

func (m *meter) addSeconds(f *float64, d time.Duration) {
	m.mu.Lock()
	*f += d.Seconds()
	m.mu.Unlock()
}

func (m *meter) addCall(r *RunTime, d time.Duration) {
	m.mu.Lock()
	r.Runs++
	r.Seconds += d.Seconds()
	m.mu.Unlock()
}

func (m *meter) addTree(nodes int) {
	m.mu.Lock()
	m.b.Trees++
	m.b.Nodes += int64(nodes)
	m.mu.Unlock()
}

func (m *meter) addHits(n int64) {
	m.mu.Lock()
	m.b.CacheHits += n
	m.mu.Unlock()
}

func (m *meter) addRun(ex Execution, cov bool, phase *RunTime) {
	s := ex.DurationMS / 1000
	m.mu.Lock()
	phase.Runs++
	phase.Seconds += s
	r := m.b.Execute[ex.Status]
	if r == nil {
		r = &RunTime{}
		m.b.Execute[ex.Status] = r
	}
	r.Runs++
	r.Seconds += s
	if cov {
		m.b.Coverage.Runs++
		m.b.Coverage.Seconds += s
	} else {
		m.b.Plain.Runs++
		m.b.Plain.Seconds += s
	}
	m.mu.Unlock()
}

// snapshot returns the breakdown so far, wall and idle time included.
func (m *meter) snapshot() *Breakdown {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.b
	b.Execute = make(map[Status]*RunTime, len(m.b.Execute))
	for s, r := range m.b.Execute {
		c := *r
		b.Execute[s] = &c
	}
	b.WallSeconds = time.Since(m.start).Seconds()
	used := b.ExecuteTotal().Seconds
	if br, ok := m.exec.(BusyReporter); ok {
		b.BusySeconds = (br.BusyTime() - m.busy0).Seconds()
		used = b.BusySeconds
	}
	b.IdleSeconds = max(0, float64(b.Slots)*b.WallSeconds-used)
	return &b
}

// total returns the earlier sessions' breakdown plus this one's.
func (m *meter) total() *Breakdown {
	b := m.snapshot()
	if m.before == nil {
		return b
	}
	t := &Breakdown{}
	t.Add(m.before)
	t.Add(b)
	return t
}

// executor returns inner wrapped so that every run it makes is recorded,
// and counted in phase (one of the meter's phase counters) too.
func (m *meter) executor(inner Executor, phase *RunTime) Executor {
	return meteredExecutor{inner: inner, m: m, phase: phase}
}

// meteredExecutor records every run it passes to inner.
type meteredExecutor struct {
	inner Executor
	m     *meter
	phase *RunTime
}

func (e meteredExecutor) Run(ctx context.Context, program, tests string) (Execution, error) {
	ex, err := e.inner.Run(ctx, program, tests)
	if err == nil {
		e.m.addRun(ex, false, e.phase)
	}
	return ex, err
}

func (e meteredExecutor) RunWith(ctx context.Context, program, tests string, o RunOptions) (Execution, error) {
	ex, err := RunWith(ctx, e.inner, program, tests, o)
	if err == nil {
		e.m.addRun(ex, o.Coverage, e.phase)
	}
	return ex, err
}

// meteredProposer times every call to inner.
type meteredProposer struct {
	inner Proposer
	m     *meter
}

func (p meteredProposer) Propose(ctx context.Context, req ProposeRequest) (Proposal, error) {
	start := time.Now()
	defer func() { p.m.addCall(&p.m.b.Propose, time.Since(start)) }()
	return p.inner.Propose(ctx, req)
}

func (p meteredProposer) Revise(ctx context.Context, req ReviseRequest) (Revision, error) {
	start := time.Now()
	defer func() { p.m.addCall(&p.m.b.Revise, time.Since(start)) }()
	return p.inner.Revise(ctx, req)
}

// UsesCoverage passes the inner proposer's choice on.
func (p meteredProposer) UsesCoverage() bool { return usesCoverage(p.inner) }
