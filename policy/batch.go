package policy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"triage/model/priority"
)

// Sentinel errors of a Batcher; callers use errors.Is.
var (
	// ErrQueueFull: the Batcher's queue holds BatchOptions.MaxQueue edges
	// already (a server answers 503).
	ErrQueueFull = errors.New("batcher: queue full")
	// ErrBatcherClosed: Score was called after Close.
	ErrBatcherClosed = errors.New("batcher: closed")
)

// BatchOptions configure a Batcher.
type BatchOptions struct {
	// MaxEdges is the most edges in one inner Score call (default 64).
	// A caller's request with more edges is split over several calls.
	MaxEdges int
	// MaxWait is how long the oldest queued edge waits for more edges to
	// fill a call. 0 takes whatever is queued when a worker is free; under
	// load edges still pile up while the inner scorer is busy.
	MaxWait time.Duration
	// MaxQueue bounds the edges waiting for a call; a request that would
	// pass it fails with ErrQueueFull. 0 means no bound.
	MaxQueue int
	// Workers is the number of inner calls in flight at once (default 1:
	// one owner of the model, one execution at a time).
	Workers int
}

// Batcher is a Scorer that packs the edges of concurrent callers into
// shared calls of an inner Scorer: a call takes up to MaxEdges edges from
// the queue in arrival order, once MaxEdges are queued or the oldest has
// waited MaxWait. Each caller gets its own distributions back, in order.
// A caller whose context ends gets its context's error at once; its edges
// leave the queue and the other callers of a shared call are unaffected
// (the inner call's context ends only when every caller in it has gone).
// Close drains the queue and waits for calls in flight.
//
// A Batcher is safe for concurrent use. It keeps no edges after a call.
type Batcher struct {
	inner Scorer
	opts  BatchOptions

	mu      sync.Mutex
	queue   []*batchRequest // in arrival order
	queued  int             // edges in queue not yet taken
	changed chan struct{}   // closed and replaced on every change of the queue
	closed  bool
	running int
	wg      sync.WaitGroup

	// Counters for Stats.
	sizes                    []uint64 // by batch size
	batches, edges, failures uint64
}

// batchRequest is one caller's Score call.
type batchRequest struct {
	ctx      context.Context
	edges    []priority.Edge
	out      []priority.Dist
	arrived  time.Time
	taken    int // edges handed to inner calls so far
	pending  int // edges handed out whose results have not come back
	err      error
	done     chan struct{}
	finished bool
}

// NewBatcher returns a Batcher over inner and starts its workers.
func NewBatcher(inner Scorer, opts BatchOptions) (*Batcher, error) {
	if inner == nil {
		return nil, errors.New("batcher: nil scorer")
	}
	if opts.MaxEdges < 0 || opts.MaxWait < 0 || opts.MaxQueue < 0 || opts.Workers < 0 {
		return nil, fmt.Errorf("batcher: negative option in %+v", opts)
	}
	if opts.MaxEdges == 0 {
		opts.MaxEdges = 64
	}
	if opts.Workers == 0 {
		opts.Workers = 1
	}
	b := &Batcher{inner: inner, opts: opts, changed: make(chan struct{}), sizes: make([]uint64, opts.MaxEdges+1)}
	b.wg.Add(opts.Workers)
	for range opts.Workers {
		go b.work()
	}
	return b, nil
}

// Options returns the Batcher's options with defaults filled in.
func (b *Batcher) Options() BatchOptions { return b.opts }

// Score implements Scorer: it queues edges and waits for their
// distributions, ctx's end, or an inner error.
func (b *Batcher) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(edges) == 0 {
		return []priority.Dist{}, nil
	}
	r := &batchRequest{ctx: ctx, edges: edges, out: make([]priority.Dist, len(edges)), arrived: time.Now(), done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, ErrBatcherClosed
	}
	if b.opts.MaxQueue > 0 && b.queued+len(edges) > b.opts.MaxQueue {
		b.mu.Unlock()
		return nil, fmt.Errorf("%w (%d edges waiting, %d more asked, limit %d)", ErrQueueFull, b.queued, len(edges), b.opts.MaxQueue)
	}
	b.queue = append(b.queue, r)
	b.queued += len(edges)
	b.signalLocked()
	b.mu.Unlock()

	select {
	case <-r.done:
		if r.err != nil {
			return nil, r.err
		}
		return r.out, nil
	case <-ctx.Done():
		b.mu.Lock()
		b.dropLocked(r)
		b.mu.Unlock()
		return nil, ctx.Err()
	}
}

// signalLocked wakes every worker waiting for a change of the queue.
func (b *Batcher) signalLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// dropLocked takes r's untaken edges out of the queue and marks it
// finished; results of its edges in flight are discarded.
func (b *Batcher) dropLocked(r *batchRequest) {
	if i := slices.Index(b.queue, r); i >= 0 {
		b.queue = slices.Delete(b.queue, i, i+1)
		b.queued -= len(r.edges) - r.taken
		b.signalLocked()
	}
	r.finished = true
}

// piece is a run of one request's edges inside a batch.
type piece struct {
	r        *batchRequest
	from, to int
}

// next waits for a batch and returns it; false once closed and drained.
func (b *Batcher) next() ([]piece, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if b.queued == 0 {
			if b.closed {
				return nil, false
			}
			ch := b.changed
			b.mu.Unlock()
			<-ch
			b.mu.Lock()
			continue
		}
		if b.queued >= b.opts.MaxEdges || b.closed || b.opts.MaxWait <= 0 {
			break
		}
		wait := time.Until(b.queue[0].arrived.Add(b.opts.MaxWait))
		if wait <= 0 {
			break
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
		}
		b.mu.Lock()
	}
	var batch []piece
	n := 0
	for n < b.opts.MaxEdges && len(b.queue) > 0 {
		r := b.queue[0]
		take := min(len(r.edges)-r.taken, b.opts.MaxEdges-n)
		batch = append(batch, piece{r, r.taken, r.taken + take})
		r.taken += take
		r.pending += take
		n += take
		b.queued -= take
		if r.taken == len(r.edges) {
			b.queue = b.queue[1:]
		}
	}
	if len(b.queue) == 0 {
		b.queue = nil // let the backing array go
	}
	b.running++
	b.sizes[n]++
	b.batches++
	b.edges += uint64(n)
	return batch, true
}

func (b *Batcher) work() {
	defer b.wg.Done()
	var in []priority.Edge
	for {
		batch, ok := b.next()
		if !ok {
			return
		}
		in = in[:0]
		for _, p := range batch {
			in = append(in, p.r.edges[p.from:p.to]...)
		}
		out, err := b.call(batch, in)
		clear(in) // keep no caller's text
		b.deliver(batch, out, err)
	}
}

// call runs the inner scorer on in under a context that ends when every
// caller of the batch has gone.
func (b *Batcher) call(batch []piece, in []priority.Edge) ([]priority.Dist, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var live atomic.Int64
	live.Store(int64(len(batch)))
	stops := make([]func() bool, 0, len(batch))
	for _, p := range batch {
		stops = append(stops, context.AfterFunc(p.r.ctx, func() {
			if live.Add(-1) == 0 {
				cancel()
			}
		}))
	}
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	out, err := b.inner.Score(ctx, in)
	if err == nil && len(out) != len(in) {
		err = fmt.Errorf("batcher: scorer returned %d distributions for %d edges", len(out), len(in))
	}
	return out, err
}

// deliver hands each piece its results (or err) and finishes the callers
// whose edges have all come back.
func (b *Batcher) deliver(batch []piece, out []priority.Dist, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running--
	if err != nil {
		b.failures++
	}
	off := 0
	for _, p := range batch {
		r := p.r
		n := p.to - p.from
		r.pending -= n
		if !r.finished {
			if err != nil {
				r.err = err
				b.dropLocked(r) // its other pieces would be wasted work
				close(r.done)
			} else {
				copy(r.out[p.from:p.to], out[off:off+n])
				if r.taken == len(r.edges) && r.pending == 0 {
					r.finished = true
					close(r.done)
				}
			}
		}
		off += n
	}
}

// Close stops accepting edges, scores every queued edge, waits for the
// calls in flight and stops the workers. It is safe to call more than once.
func (b *Batcher) Close() error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		b.signalLocked()
	}
	b.mu.Unlock()
	b.wg.Wait()
	return nil
}

// BatchStats are a Batcher's counters, for metrics.
type BatchStats struct {
	// Batches is the number of inner calls, Edges the edges they scored
	// and Failures the calls that returned an error.
	Batches, Edges, Failures uint64
	// Sizes[n] is the number of inner calls of n edges (n ≤ MaxEdges).
	Sizes []uint64
	// QueuedEdges and QueuedRequests wait for a call now; Running calls
	// are in flight.
	QueuedEdges, QueuedRequests, Running int
}

// Stats returns a snapshot of the counters.
func (b *Batcher) Stats() BatchStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BatchStats{
		Batches: b.batches, Edges: b.edges, Failures: b.failures,
		Sizes:       slices.Clone(b.sizes),
		QueuedEdges: b.queued, QueuedRequests: len(b.queue), Running: b.running,
	}
}
