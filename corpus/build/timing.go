package build

import (
	"context"
	"sync"
	"time"

	"triage/corpus"
	"triage/corpus/manifest"
)

// meter collects a build session's Breakdown; its wrappers time the
// proposer and the executor.
type meter struct {
	mu     sync.Mutex
	b      manifest.Breakdown
	start  time.Time
	busy0  time.Duration
	exec   corpus.Executor     // the inner executor, for BusyTime
	before *manifest.Breakdown // earlier sessions of the same build
}

func newMeter(exec corpus.Executor, slots int) *meter {
	m := &meter{start: time.Now(), exec: exec}
	m.b.Slots = slots
	m.b.Execute = map[corpus.Status]*manifest.RunTime{}
	m.b.Sessions = 1
	if br, ok := exec.(corpus.BusyReporter); ok {
		m.busy0 = br.BusyTime()
	}
	return m
}

func (m *meter) addSeconds(f *float64, d time.Duration) {
	m.mu.Lock()
	*f += d.Seconds()
	m.mu.Unlock()
}

func (m *meter) addCall(r *manifest.RunTime, d time.Duration) {
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

func (m *meter) addRun(ex corpus.Execution, cov bool, phase *manifest.RunTime) {
	s := ex.DurationMS / 1000
	m.mu.Lock()
	phase.Runs++
	phase.Seconds += s
	r := m.b.Execute[ex.Status]
	if r == nil {
		r = &manifest.RunTime{}
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
func (m *meter) snapshot() *manifest.Breakdown {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.b
	b.Execute = make(map[corpus.Status]*manifest.RunTime, len(m.b.Execute))
	for s, r := range m.b.Execute {
		c := *r
		b.Execute[s] = &c
	}
	b.WallSeconds = time.Since(m.start).Seconds()
	used := b.ExecuteTotal().Seconds
	if br, ok := m.exec.(corpus.BusyReporter); ok {
		b.BusySeconds = (br.BusyTime() - m.busy0).Seconds()
		used = b.BusySeconds
	}
	b.IdleSeconds = max(0, float64(b.Slots)*b.WallSeconds-used)
	return &b
}

// total returns the earlier sessions' breakdown plus this one's.
func (m *meter) total() *manifest.Breakdown {
	b := m.snapshot()
	if m.before == nil {
		return b
	}
	t := &manifest.Breakdown{}
	t.Add(m.before)
	t.Add(b)
	return t
}

// executor returns inner wrapped so that every run it makes is recorded,
// and counted in phase (one of the meter's phase counters) too.
func (m *meter) executor(inner corpus.Executor, phase *manifest.RunTime) corpus.Executor {
	return meteredExecutor{inner: inner, m: m, phase: phase}
}

// meteredExecutor records every run it passes to inner.
type meteredExecutor struct {
	inner corpus.Executor
	m     *meter
	phase *manifest.RunTime
}

func (e meteredExecutor) Run(ctx context.Context, program, tests string) (corpus.Execution, error) {
	ex, err := e.inner.Run(ctx, program, tests)
	if err == nil {
		e.m.addRun(ex, false, e.phase)
	}
	return ex, err
}

func (e meteredExecutor) RunWith(ctx context.Context, program, tests string, o corpus.RunOptions) (corpus.Execution, error) {
	ex, err := corpus.RunWith(ctx, e.inner, program, tests, o)
	if err == nil {
		e.m.addRun(ex, o.Coverage, e.phase)
	}
	return ex, err
}

// meteredProposer times every call to inner.
type meteredProposer struct {
	inner corpus.Proposer
	m     *meter
}

func (p meteredProposer) Propose(ctx context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
	start := time.Now()
	defer func() { p.m.addCall(&p.m.b.Propose, time.Since(start)) }()
	return p.inner.Propose(ctx, req)
}

func (p meteredProposer) Revise(ctx context.Context, req corpus.ReviseRequest) (corpus.Revision, error) {
	start := time.Now()
	defer func() { p.m.addCall(&p.m.b.Revise, time.Since(start)) }()
	return p.inner.Revise(ctx, req)
}

// UsesCoverage passes the inner proposer's choice on.
func (p meteredProposer) UsesCoverage() bool { return corpus.UsesCoverage(p.inner) }
