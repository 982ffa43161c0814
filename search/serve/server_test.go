package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"triage/search/serve/api"

	"triage/model/priority"
	"triage/policy"
	"triage/search/serve"
)

// clock is a settable clock for session expiry.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	t     *testing.T
	srv   *serve.Server
	hs    *httptest.Server
	c     *api.Client
	clock *clock
}

func newFixture(t *testing.T, opts serve.Options) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: &clock{t: time.Unix(1_700_000_000, 0)}}
	if opts.Now == nil {
		opts.Now = f.clock.now
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	srv, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	f.hs = httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		f.hs.Close()
		srv.Close()
	})
	f.c = &api.Client{BaseURL: f.hs.URL, Token: opts.Token}
	return f
}

// call sends body (raw) and returns the status and the answer's text.
func (f *fixture) call(method, path, body string, header ...string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.hs.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.hs.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// rootProgram is a failing root with k edits.
func rootProgram(k int) api.Program {
	p := api.Program{Program: "def f(n):\n    return n\n", Feedback: "FAILED test_b", Diagnosis: "off by one",
		Tests: []api.Test{{Name: "test_a", Passed: true}, {Name: "test_b", Passed: false}}, ProposeTokens: 30}
	for i := range k {
		p.Edits = append(p.Edits, api.Edit{Text: fmt.Sprintf("edit %d", i)})
	}
	return p
}

func child(pass bool, edits int) api.Program {
	p := rootProgram(edits)
	p.Tests[1].Passed = pass
	p.ReviseTokens = 7
	return p
}

func mustCreate(t *testing.T, c *api.Client, req api.CreateSessionRequest) api.Session {
	t.Helper()
	s, err := c.CreateSession(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func statusOf(err error) int {
	var se *api.StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

func TestHealthz(t *testing.T) {
	f := newFixture(t, serve.Options{ScorerError: "no checkpoint at /x"})
	code, body := f.call("GET", "/healthz", "")
	if code != 200 || !strings.Contains(body, `"learned":false`) || !strings.Contains(body, "no checkpoint at /x") {
		t.Errorf("healthz without a scorer: %d %s", code, body)
	}
	g := newFixture(t, serve.Options{Scorer: serve.NewStandIn(0, 0)})
	if code, body := g.call("GET", "/healthz", ""); code != 200 || !strings.Contains(body, `"learned":true`) {
		t.Errorf("healthz with a scorer: %d %s", code, body)
	}
}

func testEdges(n int) []priority.Edge {
	out := make([]priority.Edge, n)
	for i := range out {
		out[i] = priority.Edge{Feedback: "F", Diagnosis: "D", Edit: fmt.Sprint("edit ", i), PassRate: 0.5, FailedFrac: 0.5,
			Depth: i % 3, MaxDepth: 3, Remaining: 3 - i%3}
	}
	return out
}

func TestPriorities(t *testing.T) {
	scorer := serve.NewStandIn(0, 0)
	f := newFixture(t, serve.Options{Scorer: scorer, MaxEdges: 10})
	edges := testEdges(7)
	got, err := f.c.Priorities(context.Background(), edges)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scorer.Score(context.Background(), edges)
	for i := range edges {
		s, _ := want[i].S(edges[i].Remaining)
		if fmt.Sprint(got[i].Dist) != fmt.Sprint(want[i]) || got[i].S != s {
			t.Errorf("edge %d: got %+v, want %v s=%v", i, got[i], want[i], s)
		}
	}
	if _, err := f.c.Priorities(context.Background(), testEdges(11)); statusOf(err) != 400 || !strings.Contains(err.Error(), "at most 10") {
		t.Errorf("11 edges: %v", err)
	}
	bad := testEdges(3)
	bad[1].Remaining = 9
	if _, err := f.c.Priorities(context.Background(), bad); statusOf(err) != 400 || !strings.Contains(err.Error(), "edges[1]: remaining") {
		t.Errorf("bad edge: %v", err)
	}
	if got, err := f.c.Priorities(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("no edges: %v %v", got, err)
	}

	none := newFixture(t, serve.Options{ScorerError: "no default checkpoint in this build"})
	if _, err := none.c.Priorities(context.Background(), testEdges(1)); statusOf(err) != 501 || !strings.Contains(err.Error(), "no default checkpoint") {
		t.Errorf("without a scorer: %v", err)
	}
	_, err = none.c.CreateSession(context.Background(), api.CreateSessionRequest{Policy: "learned", Root: rootProgram(2)})
	if statusOf(err) != 501 {
		t.Errorf("learned session without a scorer: %v", err)
	}
	if _, err := none.c.CreateSession(context.Background(), api.CreateSessionRequest{Policy: "uct", Root: rootProgram(2)}); err != nil {
		t.Errorf("a baseline without a scorer: %v", err)
	}
}

// brokenScorer answers with distributions the server must refuse.
type brokenScorer struct{ bins int }

func (b brokenScorer) Score(_ context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	out := make([]priority.Dist, len(edges))
	for i := range out {
		out[i] = make(priority.Dist, b.bins)
		out[i][0] = 1
	}
	return out, nil
}

func TestPrioritiesRejectsABrokenScorer(t *testing.T) {
	f := newFixture(t, serve.Options{Scorer: brokenScorer{bins: 2}, Logger: quietLogger()})
	if _, err := f.c.Priorities(context.Background(), testEdges(1)); statusOf(err) != 500 || !strings.Contains(err.Error(), "bins") {
		t.Errorf("wrong bin count: %v", err)
	}
}

func TestAuth(t *testing.T) {
	f := newFixture(t, serve.Options{Token: "s3cret"})
	if code, _ := f.call("GET", "/healthz", ""); code != 200 {
		t.Errorf("healthz needs no token: %d", code)
	}
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}, {"Authorization", "Basic s3cret"}} {
		code, body := f.call("GET", "/metrics", "", h...)
		if code != 401 || !strings.Contains(body, "bearer token") {
			t.Errorf("metrics with %v: %d %s", h, code, body)
		}
	}
	if code, _ := f.call("GET", "/metrics", "", "Authorization", "Bearer s3cret"); code != 200 {
		t.Errorf("right token refused: %d", code)
	}
	if _, err := f.c.CreateSession(context.Background(), api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(1)}); err != nil {
		t.Errorf("client with the token: %v", err)
	}
}

// gateScorer blocks every call until its gate opens or its context ends.
type gateScorer struct {
	gate    chan struct{}
	entered chan struct{}
}

func (g *gateScorer) Score(ctx context.Context, edges []priority.Edge) ([]priority.Dist, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return serve.NewStandIn(0, 0).Score(ctx, edges)
}

func newGate() *gateScorer {
	return &gateScorer{gate: make(chan struct{}), entered: make(chan struct{}, 1)}
}

func TestRequestTimeoutAndQueueFull(t *testing.T) {
	g := newGate()
	f := newFixture(t, serve.Options{Scorer: g, RequestTimeout: 50 * time.Millisecond})
	_, err := f.c.Priorities(context.Background(), testEdges(1))
	if statusOf(err) != 503 || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("slow scorer: %v", err)
	}
	// A learned ask waits on the scorer too.
	s := mustCreate(t, f.c, api.CreateSessionRequest{Policy: "learned", Root: rootProgram(2)})
	if _, err := f.c.Ask(context.Background(), s.ID, 1); statusOf(err) != 503 {
		t.Errorf("learned ask on a slow scorer: %v", err)
	}
	close(g.gate)
	if a, err := f.c.Ask(context.Background(), s.ID, 1); err != nil || len(a.Edges) != 1 {
		t.Errorf("the same ask once the scorer answers: %+v %v", a, err)
	}

	g2 := newGate()
	b, err := policy.NewBatcher(g2, policy.BatchOptions{MaxEdges: 2, MaxQueue: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer close(g2.gate)
	q := newFixture(t, serve.Options{Scorer: b})
	done := make(chan error, 1)
	go func() { _, err := q.c.Priorities(context.Background(), testEdges(2)); done <- err }()
	<-g2.entered
	go func() { _, _ = q.c.Priorities(context.Background(), testEdges(2)) }()
	waitFor(t, func() bool { return b.Stats().QueuedEdges == 2 })
	code, body := q.call("POST", "/v1/priorities", mustJSON(api.PrioritiesRequest{Edges: testEdges(1)}))
	if code != 503 || !strings.Contains(body, "overloaded") {
		t.Errorf("full queue: %d %s", code, body)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

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

// promLine is one line of the Prometheus text format.
var promLine = regexp.MustCompile(`^(# (HELP|TYPE) [a-z_]+ .+|[a-z_]+(\{([a-z]+="[^"]*",?)+\})? [0-9.e+-]+|)$`)

func TestMetrics(t *testing.T) {
	b, err := policy.NewBatcher(serve.NewStandIn(0, 0), policy.BatchOptions{MaxEdges: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	f := newFixture(t, serve.Options{Scorer: b})
	for range 3 {
		if _, err := f.c.Priorities(context.Background(), testEdges(5)); err != nil {
			t.Fatal(err)
		}
	}
	f.call("GET", "/v1/sessions/nope", "")
	mustCreate(t, f.c, api.CreateSessionRequest{Policy: "bfs", Root: rootProgram(1)})
	code, text := f.call("GET", "/metrics", "")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	for i, l := range strings.Split(text, "\n") {
		if !promLine.MatchString(l) {
			t.Errorf("line %d is not Prometheus text: %q", i+1, l)
		}
	}
	for _, want := range []string{
		`triage_http_requests_total{route="POST /v1/priorities",code="200"} 3`,
		`triage_http_requests_total{route="GET /v1/sessions/{id}",code="404"} 1`,
		`triage_http_request_duration_seconds_count{route="POST /v1/priorities"} 3`,
		`triage_http_request_duration_seconds_bucket{route="POST /v1/priorities",le="+Inf"} 3`,
		"triage_scorer_edges_total 15",
		"triage_scorer_batch_edges_sum 15",
		`triage_scorer_batch_edges_bucket{le="16"} 3`,
		"triage_scorer_queue_edges 0",
		"triage_priority_edges_total 15",
		"triage_sessions 1",
		"triage_sessions_created_total 1",
		"triage_http_panics_total 0",
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// TestGracefulShutdown cancels Serve's context while a request waits on
// the model: the request must still be answered, Serve must return nil
// afterwards, and no goroutine may be left.
func TestGracefulShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	g := newGate()
	dir := t.TempDir()
	l := startServing(t, serve.Options{Scorer: g, SessionsDir: dir})
	c := l.c
	s := mustCreate(t, c, api.CreateSessionRequest{Policy: "dfs", Root: rootProgram(2)})
	answered := make(chan error, 1)
	go func() {
		got, err := c.Priorities(context.Background(), testEdges(2))
		if err == nil && len(got) != 2 {
			err = fmt.Errorf("%d priorities", len(got))
		}
		answered <- err
	}()
	<-g.entered
	l.cancel()
	select {
	case err := <-l.served:
		t.Fatalf("Serve returned %v with a request in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(g.gate)
	if err := <-answered; err != nil {
		t.Errorf("request in flight at shutdown: %v", err)
	}
	l.stop()
	if _, err := c.Priorities(context.Background(), testEdges(1)); err == nil {
		t.Error("a request after shutdown was answered")
	}
	if _, err := os.Stat(filepath.Join(dir, serve.SessionFileName(s.ID))); err != nil {
		t.Errorf("open session not saved at shutdown: %v", err)
	}
	l.tr.CloseIdleConnections()
	checkGoroutines(t, before)
}

// serving is a Server answering on a loopback listener through Serve.
type serving struct {
	t      *testing.T
	base   string
	c      *api.Client
	tr     *http.Transport
	cancel context.CancelFunc
	served chan error
}

func startServing(t *testing.T, opts serve.Options) *serving {
	t.Helper()
	opts.Logger = quietLogger()
	srv, err := serve.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &serving{t: t, base: "http://" + ln.Addr().String(), tr: &http.Transport{}, cancel: cancel, served: make(chan error, 1)}
	l.c = &api.Client{BaseURL: l.base, HTTP: &http.Client{Transport: l.tr}}
	go func() { l.served <- srv.Serve(ctx, ln) }()
	return l
}

// stop ends Serve (a graceful shutdown) and checks it returned nil.
func (l *serving) stop() {
	l.t.Helper()
	l.cancel()
	if err := <-l.served; err != nil {
		l.t.Errorf("Serve: %v", err)
	}
	l.tr.CloseIdleConnections()
}

// checkGoroutines waits for the goroutine count to fall back to before
// (polling only to let exiting goroutines finish) and fails with every
// stack if it does not.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	for i := 0; i < 300; i++ {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Errorf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
}
