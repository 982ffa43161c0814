package policy_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/model/priority"
	"triage/policy"
	"triage/policy/policytest"
	"triage/search"
)

// recScorer is an inner scorer that records its call sizes; its answer for
// an edge encodes the edge's ProgramLen, so a caller can check it got its
// own distributions. With gate set, each call waits for a value on it (or
// for its context's end).
type recScorer struct {
	mu      sync.Mutex
	calls   []int
	gate    chan struct{}
	entered chan int // receives the size of each call as it starts, if set
	err     error
	short   bool // return one distribution too few
}

func (s *recScorer) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	s.mu.Lock()
	s.calls = append(s.calls, len(edges))
	s.mu.Unlock()
	if s.entered != nil {
		s.entered <- len(edges)
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	n := len(edges)
	if s.short {
		n--
	}
	out := make([]priority.Dist, n)
	for i := range out {
		out[i] = encode(edges[i].ProgramLen)
	}
	return out, nil
}

func (s *recScorer) sizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.calls...)
}

func encode(x int) priority.Dist {
	p := float64(x) / 1e9
	return priority.Dist{p, 1 - p}
}

// edgesOf returns n edges whose ProgramLen is caller*10000 + i.
func edgesOf(caller, n int) []priority.Edge {
	out := make([]priority.Edge, n)
	for i := range out {
		out[i] = priority.Edge{Edit: fmt.Sprint(caller, i), ProgramLen: caller*10000 + i, MaxDepth: 1, Remaining: 1}
	}
	return out
}

func checkOwn(t *testing.T, caller int, got []priority.Dist, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("caller %d: %d distributions, want %d", caller, len(got), n)
	}
	for i, d := range got {
		if want := encode(caller*10000 + i); d[0] != want[0] {
			t.Fatalf("caller %d edge %d: got %v, want %v (another caller's result?)", caller, i, d, want)
		}
	}
}

func newTestBatcher(t *testing.T, inner policy.Scorer, opts policy.BatchOptions) *policy.Batcher {
	t.Helper()
	b, err := policy.NewBatcher(inner, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// checkNoLeak fails when goroutines started after before are still running
// once the test's cleanups ran.
func checkNoLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		for i := 0; i < 200; i++ {
			if runtime.NumGoroutine() <= before {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d after, %d before\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
	})
}

func TestBatcherConcurrentCallersGetTheirOwnResults(t *testing.T) {
	checkNoLeak(t)
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			inner := &recScorer{}
			b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 7, MaxWait: time.Millisecond, Workers: workers})
			const callers = 40
			var wg sync.WaitGroup
			total := 0
			for c := 0; c < callers; c++ {
				n := c%11 + 1 // 1..11 edges, some above MaxEdges
				total += n
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := b.Score(context.Background(), edgesOf(c, n))
					if err != nil {
						t.Error(err)
						return
					}
					checkOwn(t, c, got, n)
				}()
			}
			wg.Wait()
			sum := 0
			for _, s := range inner.sizes() {
				if s < 1 || s > 7 {
					t.Errorf("inner call of %d edges, want 1..7", s)
				}
				sum += s
			}
			st := b.Stats()
			if sum != total || st.Edges != uint64(total) || st.Batches != uint64(len(inner.sizes())) {
				t.Errorf("edges scored %d, stats %+v, want %d", sum, st, total)
			}
			var hist uint64
			for n, c := range st.Sizes {
				hist += uint64(n) * c
			}
			if hist != uint64(total) || st.QueuedEdges != 0 || st.QueuedRequests != 0 || st.Running != 0 {
				t.Errorf("stats after the run: %+v", st)
			}
		})
	}
}

func TestBatcherPacksCallersIntoOneCall(t *testing.T) {
	checkNoLeak(t)
	// MaxWait is long: the call starts because MaxEdges are queued.
	inner := &recScorer{}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 6, MaxWait: time.Hour})
	var wg sync.WaitGroup
	for c := 0; c < 2; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := b.Score(context.Background(), edgesOf(c, 3))
			if err != nil {
				t.Error(err)
				return
			}
			checkOwn(t, c, got, 3)
		}()
	}
	wg.Wait()
	if got := inner.sizes(); len(got) != 1 || got[0] != 6 {
		t.Errorf("inner calls %v, want one call of 6 edges", got)
	}
	if st := b.Stats(); st.Sizes[6] != 1 {
		t.Errorf("size histogram %v, want one batch of 6", st.Sizes)
	}
}

func TestBatcherSplitsLargeRequests(t *testing.T) {
	checkNoLeak(t)
	inner := &recScorer{}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 4})
	got, err := b.Score(context.Background(), edgesOf(3, 10))
	if err != nil {
		t.Fatal(err)
	}
	checkOwn(t, 3, got, 10)
	if s := inner.sizes(); fmt.Sprint(s) != "[4 4 2]" {
		t.Errorf("inner calls %v, want [4 4 2]", s)
	}
}

func TestBatcherFillsWhileBusy(t *testing.T) {
	checkNoLeak(t)
	// The first call holds the only worker; three requests queue meanwhile
	// and go out together in the next call, with MaxWait 0.
	inner := &recScorer{gate: make(chan struct{}), entered: make(chan int, 10)}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 64})
	results := make(chan error, 4)
	go func() { _, err := b.Score(context.Background(), edgesOf(0, 1)); results <- err }()
	<-inner.entered
	for c := 1; c <= 3; c++ {
		go func() {
			got, err := b.Score(context.Background(), edgesOf(c, 2))
			if err == nil && len(got) != 2 {
				err = fmt.Errorf("caller %d: %d results", c, len(got))
			}
			results <- err
		}()
	}
	waitFor(t, func() bool { return b.Stats().QueuedEdges == 6 })
	close(inner.gate)
	for range 4 {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	if s := inner.sizes(); fmt.Sprint(s) != "[1 6]" {
		t.Errorf("inner calls %v, want [1 6]", s)
	}
}

// waitFor polls cond (for state reached by other goroutines; no timing is
// asserted, the limit only keeps a broken test from hanging).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

func TestBatcherCancelledCallerDoesNotFailOthers(t *testing.T) {
	checkNoLeak(t)
	inner := &recScorer{gate: make(chan struct{}), entered: make(chan int, 10)}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 4, MaxWait: time.Hour})
	ctxA, cancelA := context.WithCancel(context.Background())
	errA := make(chan error, 1)
	go func() { _, err := b.Score(ctxA, edgesOf(1, 2)); errA <- err }()
	resB := make(chan []priority.Dist, 1)
	go func() {
		got, err := b.Score(context.Background(), edgesOf(2, 2))
		if err != nil {
			t.Error(err)
		}
		resB <- got
	}()
	if n := <-inner.entered; n != 4 {
		t.Fatalf("shared call of %d edges, want 4", n)
	}
	cancelA()
	if err := <-errA; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled caller: %v, want context.Canceled", err)
	}
	close(inner.gate)
	checkOwn(t, 2, <-resB, 2)
}

func TestBatcherCancelledWhileQueued(t *testing.T) {
	checkNoLeak(t)
	inner := &recScorer{gate: make(chan struct{}), entered: make(chan int, 10)}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 2})
	go func() { _, _ = b.Score(context.Background(), edgesOf(0, 2)) }()
	<-inner.entered // the worker is busy; the next request waits in the queue
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := b.Score(ctx, edgesOf(1, 5)); errc <- err }()
	waitFor(t, func() bool { return b.Stats().QueuedEdges == 5 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if st := b.Stats(); st.QueuedEdges != 0 || st.QueuedRequests != 0 {
		t.Errorf("queue after cancel: %+v", st)
	}
	close(inner.gate)
	b.Close()
	if s := inner.sizes(); fmt.Sprint(s) != "[2]" {
		t.Errorf("inner calls %v: the cancelled request's edges were scored", s)
	}
}

func TestBatcherInnerContextEndsWhenAllCallersGo(t *testing.T) {
	checkNoLeak(t)
	inner := &recScorer{gate: make(chan struct{}), entered: make(chan int, 10)}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 4, MaxWait: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	for c := 0; c < 2; c++ {
		go func() { _, err := b.Score(ctx, edgesOf(c, 2)); errs <- err }()
	}
	<-inner.entered
	cancel()
	for range 2 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("got %v", err)
		}
	}
	// The gate stays shut: Close returns only if the inner call saw its
	// context end.
	b.Close()
	if st := b.Stats(); st.Failures != 1 {
		t.Errorf("failures %d, want 1 (the abandoned call)", st.Failures)
	}
}

func TestBatcherErrors(t *testing.T) {
	checkNoLeak(t)
	boom := errors.New("boom")
	b := newTestBatcher(t, &recScorer{err: boom}, policy.BatchOptions{})
	if _, err := b.Score(context.Background(), edgesOf(0, 3)); !errors.Is(err, boom) {
		t.Errorf("inner error: got %v", err)
	}
	if b.Stats().Failures != 1 {
		t.Errorf("failures not counted: %+v", b.Stats())
	}

	short := newTestBatcher(t, &recScorer{short: true}, policy.BatchOptions{})
	if _, err := short.Score(context.Background(), edgesOf(0, 3)); err == nil {
		t.Error("a short answer from the inner scorer was accepted")
	}

	ok := newTestBatcher(t, &recScorer{}, policy.BatchOptions{})
	if got, err := ok.Score(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("no edges: %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ok.Score(ctx, edgesOf(0, 1)); !errors.Is(err, context.Canceled) {
		t.Errorf("done context: %v", err)
	}
	ok.Close()
	ok.Close()
	if _, err := ok.Score(context.Background(), edgesOf(0, 1)); !errors.Is(err, policy.ErrBatcherClosed) {
		t.Errorf("after Close: %v", err)
	}

	for _, o := range []policy.BatchOptions{{MaxEdges: -1}, {MaxWait: -1}, {MaxQueue: -1}, {Workers: -1}} {
		if _, err := policy.NewBatcher(&recScorer{}, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := policy.NewBatcher(nil, policy.BatchOptions{}); err == nil {
		t.Error("nil scorer accepted")
	}
}

func TestBatcherQueueFull(t *testing.T) {
	checkNoLeak(t)
	inner := &recScorer{gate: make(chan struct{}), entered: make(chan int, 10)}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 2, MaxQueue: 3})
	go func() { _, _ = b.Score(context.Background(), edgesOf(0, 2)) }()
	<-inner.entered
	done := make(chan error, 1)
	go func() { _, err := b.Score(context.Background(), edgesOf(1, 3)); done <- err }()
	waitFor(t, func() bool { return b.Stats().QueuedEdges == 3 })
	if _, err := b.Score(context.Background(), edgesOf(2, 1)); !errors.Is(err, policy.ErrQueueFull) {
		t.Errorf("over the queue limit: %v, want policy.ErrQueueFull", err)
	}
	close(inner.gate)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func TestBatcherCloseDrains(t *testing.T) {
	checkNoLeak(t)
	inner := &recScorer{gate: make(chan struct{}), entered: make(chan int, 10)}
	b := newTestBatcher(t, inner, policy.BatchOptions{MaxEdges: 3, MaxWait: time.Hour})
	var wg sync.WaitGroup
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := b.Score(context.Background(), edgesOf(c, 2))
			if err != nil {
				t.Error(err)
				return
			}
			checkOwn(t, c, got, 2)
		}()
	}
	<-inner.entered
	waitFor(t, func() bool { st := b.Stats(); return st.QueuedEdges == 8-3 })
	closed := make(chan struct{})
	go func() { b.Close(); close(closed) }()
	close(inner.gate) // let every call through; Close must score the queue first
	<-closed
	wg.Wait()
	if st := b.Stats(); st.Edges != 8 {
		t.Errorf("scored %d edges before closing, want 8", st.Edges)
	}
}

// TestBatcherServesLearnedEpisodes replays the learned policy on several
// trees concurrently through one policy.Batcher, as eval and serve do, and checks
// each replay makes the choices it makes with the bare scorer.
func TestBatcherServesLearnedEpisodes(t *testing.T) {
	checkNoLeak(t)
	bare := policy.ScoreFunc(func(_ context.Context, edges []priority.Edge) ([]priority.Dist, error) {
		out := make([]priority.Dist, len(edges))
		for i, e := range edges {
			h := fnv.New64a()
			h.Write([]byte(e.Edit))
			h.Write([]byte(e.Diagnosis))
			p := float64(h.Sum64()%1000) / 1000
			d := make(priority.Dist, e.MaxDepth+1)
			d[0], d[e.MaxDepth] = p, 1-p
			out[i] = d
		}
		return out, nil
	})
	b := newTestBatcher(t, bare, policy.BatchOptions{MaxEdges: 8, MaxWait: time.Millisecond})
	var trees []*corpus.Tree
	for i := 0; i < 6; i++ {
		trees = append(trees, policytest.Exhaustive(fmt.Sprint("t", i), 3, 3, policytest.FixAt(0.2, i%3, (i+1)%3, 2)))
	}
	replay := func(s policy.Scorer, tr *corpus.Tree) string {
		p, err := policy.NewLearned(s)
		if err != nil {
			t.Fatal(err)
		}
		env, err := search.NewReplay(tr)
		if err != nil {
			t.Fatal(err)
		}
		res, err := search.Run(context.Background(), env, p, search.Config{Seed: 1})
		if err != nil {
			t.Error(err)
		}
		return fmt.Sprint(res.Order, res.Fix)
	}
	var wg sync.WaitGroup
	for _, tr := range trees {
		want := replay(bare, tr)
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := replay(b, tr); got != want {
					t.Errorf("tree %s: batched replay %s, bare %s", tr.ID, got, want)
				}
			}()
		}
	}
	wg.Wait()
	if st := b.Stats(); st.Batches == 0 {
		t.Error("the batcher scored nothing")
	}
}
