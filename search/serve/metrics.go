package serve

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"triage/policy"
)

// latencyBuckets are the upper bounds (seconds) of the request latency
// histogram.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// histogram is a Prometheus histogram: counts per upper bound, plus the
// sum and count of observations.
type histogram struct {
	bounds []float64
	counts []uint64 // by bound; not cumulative
	sum    float64
	n      uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds))}
}

func (h *histogram) observe(v float64) { h.observeN(v, 1) }

// observeN records n observations of v.
func (h *histogram) observeN(v float64, n uint64) {
	if i, _ := slices.BinarySearch(h.bounds, v); i < len(h.bounds) {
		h.counts[i] += n
	}
	h.sum += v * float64(n)
	h.n += n
}

// write prints the histogram's series, labels being `k="v"` pairs or "".
func (h *histogram) write(w io.Writer, name, labels string) {
	sep := ""
	if labels != "" {
		sep = ","
	}
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{%s%sle=%q} %d\n", name, labels, sep, strconv.FormatFloat(b, 'g', -1, 64), cum)
	}
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, h.n)
	if labels != "" {
		labels = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %s\n", name, labels, strconv.FormatFloat(h.sum, 'g', -1, 64))
	fmt.Fprintf(w, "%s_count%s %d\n", name, labels, h.n)
}

type routeCode struct {
	route string
	code  int
}

// metrics are the server's counters, written in the Prometheus text
// format (version 0.0.4) by GET /metrics.
type metrics struct {
	mu       sync.Mutex
	requests map[routeCode]uint64
	latency  map[string]*histogram
	panics   uint64

	sessionsCreated, sessionsDeleted, sessionsExpired uint64
	expansions, priorityEdges                         uint64

	// The session store (durable sessions): latency and errors by
	// operation, append races lost, sessions rebuilt from their log.
	storeLatency                    map[string]*histogram
	storeErrors                     map[string]uint64
	storeConflicts, sessionsRebuilt uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[routeCode]uint64{}, latency: map[string]*histogram{},
		storeLatency: map[string]*histogram{}, storeErrors: map[string]uint64{}}
}

// observeStore records one session store operation.
func (m *metrics) observeStore(op string, d time.Duration, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.storeLatency[op]
	if h == nil {
		h = newHistogram(storeBuckets)
		m.storeLatency[op] = h
	}
	h.observe(d.Seconds())
	if err != nil {
		m.storeErrors[op]++
	}
}

// storeBuckets are the upper bounds (seconds) of the store latency
// histogram: an fsync takes from tens of microseconds to tens of
// milliseconds.
var storeBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5}

func (m *metrics) observe(route string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[routeCode{route, code}]++
	h := m.latency[route]
	if h == nil {
		h = newHistogram(latencyBuckets)
		m.latency[route] = h
	}
	h.observe(d.Seconds())
}

func (m *metrics) add(counter *uint64, n uint64) {
	m.mu.Lock()
	*counter += n
	m.mu.Unlock()
}

func (m *metrics) get(counter *uint64) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return *counter
}

// write prints every metric. batch is nil when scoring is not batched.
func (m *metrics) write(out io.Writer, sessions int, batch *policy.BatchStats) error {
	w := bufio.NewWriter(out)
	m.mu.Lock()
	keys := make([]routeCode, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b routeCode) int {
		if c := cmp.Compare(a.route, b.route); c != 0 {
			return c
		}
		return cmp.Compare(a.code, b.code)
	})
	header(w, "triage_http_requests_total", "counter", "HTTP requests by route and status code.")
	for _, k := range keys {
		fmt.Fprintf(w, "triage_http_requests_total{route=%q,code=\"%d\"} %d\n", k.route, k.code, m.requests[k])
	}
	routes := make([]string, 0, len(m.latency))
	for r := range m.latency {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	header(w, "triage_http_request_duration_seconds", "histogram", "Time to answer a request, by route.")
	for _, r := range routes {
		m.latency[r].write(w, "triage_http_request_duration_seconds", fmt.Sprintf("route=%q", r))
	}
	counter(w, "triage_http_panics_total", "Handler panics recovered (each answered 500).", m.panics)
	counter(w, "triage_sessions_created_total", "Sessions created.", m.sessionsCreated)
	counter(w, "triage_sessions_deleted_total", "Sessions deleted by their clients.", m.sessionsDeleted)
	counter(w, "triage_sessions_expired_total", "Sessions dropped after their idle timeout.", m.sessionsExpired)
	counter(w, "triage_session_expansions_total", "Expansions told to sessions.", m.expansions)
	counter(w, "triage_priority_edges_total", "Edges scored for POST /v1/priorities.", m.priorityEdges)
	if len(m.storeLatency) > 0 {
		ops := slices.Sorted(maps.Keys(m.storeLatency))
		header(w, "triage_store_duration_seconds", "histogram", "Time of one session store operation, by operation.")
		for _, op := range ops {
			m.storeLatency[op].write(w, "triage_store_duration_seconds", fmt.Sprintf("op=%q", op))
		}
		header(w, "triage_store_errors_total", "counter", "Session store operations that failed, by operation.")
		for _, op := range ops {
			fmt.Fprintf(w, "triage_store_errors_total{op=%q} %d\n", op, m.storeErrors[op])
		}
		counter(w, "triage_store_conflicts_total", "Appends that lost a race with another replica (the request was retried).", m.storeConflicts)
		counter(w, "triage_sessions_rebuilt_total", "Sessions rebuilt from their log.", m.sessionsRebuilt)
	}
	m.mu.Unlock()
	header(w, "triage_sessions", "gauge", "Open sessions.")
	fmt.Fprintf(w, "triage_sessions %d\n", sessions)
	if batch != nil {
		counter(w, "triage_scorer_batches_total", "Model executions (batched scorer calls).", batch.Batches)
		counter(w, "triage_scorer_edges_total", "Edges scored by the model.", batch.Edges)
		counter(w, "triage_scorer_batch_failures_total", "Model executions that failed.", batch.Failures)
		h := newHistogram(batchBuckets(len(batch.Sizes) - 1))
		for size, n := range batch.Sizes {
			h.observeN(float64(size), n)
		}
		header(w, "triage_scorer_batch_edges", "histogram", "Edges per model execution.")
		h.write(w, "triage_scorer_batch_edges", "")
		gauge(w, "triage_scorer_queue_edges", "Edges waiting for a model execution.", batch.QueuedEdges)
		gauge(w, "triage_scorer_queue_requests", "Scoring requests waiting for a model execution.", batch.QueuedRequests)
		gauge(w, "triage_scorer_running", "Model executions in flight.", batch.Running)
	}
	return w.Flush()
}

// batchBuckets are powers of two up to max, and max.
func batchBuckets(max int) []float64 {
	var out []float64
	for b := 1; b < max; b *= 2 {
		out = append(out, float64(b))
	}
	return append(out, float64(max))
}

func header(w io.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func counter(w io.Writer, name, help string, v uint64) {
	header(w, name, "counter", help)
	fmt.Fprintf(w, "%s %d\n", name, v)
}

func gauge(w io.Writer, name, help string, v int) {
	header(w, name, "gauge", help)
	fmt.Fprintf(w, "%s %d\n", name, v)
}
