package serve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"triage/corpus"
	"triage/corpus/shard"
	"triage/policy"
	"triage/search/serve"
	"triage/search/serve/api"
	"triage/search/serve/sessionlog"
	"triage/search/serve/sessionlog/pgtest"
)

// durableOpts are the options of a server on store st.
func durableOpts(st sessionlog.Store) serve.Options {
	return serve.Options{Scorer: serve.NewStandIn(0, 0), ScorerID: "stand-in", Store: st, SessionsDir: ""}
}

// switcher hands every request to one of its servers, chosen by pick
// before each request; a server may be replaced between requests (a
// restart: a fresh process on the same store knows nothing but the log).
type switcher struct {
	mu      sync.Mutex
	servers []*serve.Server
	pick    func(servers []*serve.Server) int
}

func (sw *switcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw.mu.Lock()
	h := sw.servers[sw.pick(sw.servers)].Handler()
	sw.mu.Unlock()
	h.ServeHTTP(w, r)
}

// allCases are every policy, two seeds and two batch sizes.
func allCases() []parityCase { return policyCases([]uint64{1, 2}, []int{1, 2}) }

// policyCases are every policy (learned and the baselines) at each seed
// and batch size.
func policyCases(seeds []uint64, batches []int) []parityCase {
	var out []parityCase
	for _, name := range append([]string{"learned"}, policy.Baselines...) {
		for _, batch := range batches {
			for _, seed := range seeds {
				out = append(out, newCase(name, seed, batch))
			}
		}
	}
	return out
}

// uninterrupted drives every case over every tree through one server
// without a store.
func uninterrupted(t *testing.T, trees []*corpus.Tree, cases []parityCase) map[string]outcome {
	t.Helper()
	srv, err := serve.New(serve.Options{Scorer: serve.NewStandIn(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	return driveAll(t, &api.Client{BaseURL: hs.URL}, trees, cases)
}

func key(tr *corpus.Tree, cs parityCase) string {
	return fmt.Sprintf("%s/%s/%d/%d", tr.ID, cs.Policy, cs.Seed, cs.Batch)
}

// checkSame drives every case over every tree through sw and compares
// each search with the uninterrupted one.
func checkSame(t *testing.T, sw *switcher, trees []*corpus.Tree, cases []parityCase, want map[string]outcome) {
	t.Helper()
	hs := httptest.NewServer(sw)
	defer hs.Close()
	compareAll(t, trees, cases, driveAll(t, &api.Client{BaseURL: hs.URL}, trees, cases), want)
}

// TestDurableRestarts drives sessions of every policy over the recorded
// trees through a server that restarts (a new server on the same bbolt
// store, nothing in memory) before a random fifth of the requests: every
// search asks for the same edges as an uninterrupted one and reaches the
// same end.
func TestDurableRestarts(t *testing.T) {
	trees := parityTrees()
	cases := allCases()
	if testing.Short() {
		trees, cases = trees[:2], cases[:8]
	}
	want := uninterrupted(t, trees, cases)
	st := boltStore(t)
	newServer := func() *serve.Server {
		srv, err := serve.New(durableOpts(st))
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var restarts atomic.Int64
	sw := &switcher{servers: []*serve.Server{newServer()}, pick: func(s []*serve.Server) int {
		if rng.IntN(5) == 0 {
			s[0] = newServer() // the old one is dropped without Close, as by kill -9
			restarts.Add(1)
		}
		return 0
	}}
	checkSame(t, sw, trees, cases, want)
	if restarts.Load() == 0 {
		t.Fatal("no restart happened")
	}
	t.Logf("%d restarts", restarts.Load())
}

// TestDurableReplicas drives the same sessions through two servers on one
// PostgreSQL store (two stores: two processes' worth of connections),
// alternating request by request: the same searches as one server.
func TestDurableReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a PostgreSQL server")
	}
	url := pgtest.Start(t)
	trees := parityTrees()
	cases := policyCases([]uint64{1}, []int{1, 2}) // one seed: each request is a PostgreSQL commit
	want := uninterrupted(t, trees, cases)
	var servers []*serve.Server
	for range 2 {
		st, err := sessionlog.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		srv, err := serve.New(durableOpts(st))
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, srv)
	}
	n := 0
	sw := &switcher{servers: servers, pick: func(s []*serve.Server) int { n++; return n % len(s) }}
	checkSame(t, sw, trees, cases, want)
	// A replica behind catches up with the records it has not seen: it
	// rebuilds a session from the whole log once (the first time it
	// serves it), not on every request.
	rebuilt := 0
	for _, srv := range servers {
		rebuilt += metricValue(t, srv, "triage_sessions_rebuilt_total")
	}
	if sessions := len(trees) * len(cases); rebuilt > sessions {
		t.Errorf("%d rebuilds for %d sessions over %d requests", rebuilt, sessions, n)
	}
	t.Logf("%d sessions, %d requests alternating between 2 replicas, %d rebuilds", len(trees)*len(cases), n, rebuilt)

	// Concurrent tells of one session through both replicas: the store
	// serializes them, and none is lost.
	hs0, hs1 := httptest.NewServer(servers[0].Handler()), httptest.NewServer(servers[1].Handler())
	defer hs0.Close()
	defer hs1.Close()
	clients := []*api.Client{{BaseURL: hs0.URL}, {BaseURL: hs1.URL}}
	ctx := context.Background()
	root := api.Program{Program: "root", Tests: []api.Test{{Name: "t", Passed: false}},
		Edits: []api.Edit{{Text: "a"}, {Text: "b"}, {Text: "c"}}}
	sess, err := clients[0].CreateSession(ctx, api.CreateSessionRequest{Policy: "bfs", K: 3, MaxDepth: 3, Budget: 40, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	a, err := clients[1].Ask(ctx, sess.ID, 3)
	if err != nil || len(a.Edges) != 3 {
		t.Fatalf("ask: %+v, %v", a, err)
	}
	var wg sync.WaitGroup
	for i, e := range a.Edges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			child := api.Program{Program: "child", Tests: []api.Test{{Name: "t"}}, Edits: []api.Edit{{Text: "x"}}}
			if _, err := clients[i%2].Tell(ctx, sess.ID, e.Edge, child); err != nil {
				t.Errorf("tell %d: %v", e.Edge, err)
			}
		}()
	}
	wg.Wait()
	for _, c := range clients {
		got, err := c.Session(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Expansions != 3 || len(got.Outstanding) != 0 || got.Frontier != 3 {
			t.Errorf("after 3 concurrent tells: expansions %d outstanding %v frontier %d", got.Expansions, got.Outstanding, got.Frontier)
		}
	}
	if _, err := clients[1].DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := clients[0].Ask(ctx, sess.ID, 1); !isStatus(err, http.StatusNotFound) {
		t.Errorf("ask of a session deleted on the other replica: %v", err)
	}
}

// boltStore opens a bbolt store in a temporary folder, closed at the end.
func boltStore(t *testing.T) sessionlog.Store {
	t.Helper()
	st, err := sessionlog.OpenBolt(filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func isStatus(err error, code int) bool {
	var se *api.StatusError
	return errors.As(err, &se) && se.Code == code
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// flaky is a store whose appends fail while down is set.
type flaky struct {
	sessionlog.Store
	down atomic.Bool
}

func (f *flaky) Append(ctx context.Context, id string, r sessionlog.Record) error {
	if f.down.Load() {
		return errors.New("connection refused")
	}
	return f.Store.Append(ctx, id, r)
}

func (f *flaky) Ping(ctx context.Context) error {
	if f.down.Load() {
		return errors.New("connection refused")
	}
	return f.Store.Ping(ctx)
}

// TestDurableStoreDown: while the store fails, nothing is acknowledged
// (503 with the reason; /healthz 503); after it recovers, the session goes
// on from what was acknowledged, as if the failed requests never came.
func TestDurableStoreDown(t *testing.T) {
	st := boltStore(t)
	fl := &flaky{Store: st}
	srv, err := serve.New(durableOpts(fl))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	c := &api.Client{BaseURL: hs.URL}
	ctx := context.Background()
	tr := parityTrees()[0]
	recorded := func(e corpus.EdgeID) bool { return tr.Edges[e].Child != corpus.NoNode }
	sess, err := c.CreateSession(ctx, api.CreateSessionRequest{Policy: "dfs", MaxDepth: tr.D, K: tr.K,
		Root: api.ProgramOf(tr, tr.Root(), recorded)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Ask(ctx, sess.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	fl.down.Store(true)
	child := api.ProgramOf(tr, tr.Node(tr.Edges[a.Edges[0].Edge].Child), recorded)
	if _, err := c.Tell(ctx, sess.ID, a.Edges[0].Edge, child); !isStatus(err, http.StatusServiceUnavailable) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("tell while the store is down: %v", err)
	}
	if _, err := c.Ask(ctx, sess.ID, 1); !isStatus(err, http.StatusServiceUnavailable) {
		t.Errorf("ask while the store is down: %v", err)
	}
	if _, err := c.CreateSession(ctx, api.CreateSessionRequest{Policy: "bfs", Root: api.Program{Program: "x"}}); !isStatus(err, http.StatusServiceUnavailable) {
		t.Errorf("create while the store is down: %v", err)
	}
	resp, err := http.Get(hs.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/healthz with the store down: %d", resp.StatusCode)
	}
	fl.down.Store(false)
	got, err := c.Session(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Expansions != 0 || len(got.Outstanding) != 1 || got.Outstanding[0] != a.Edges[0].Edge {
		t.Fatalf("after the outage: %+v", got)
	}
	if tr, err := c.Tell(ctx, sess.ID, a.Edges[0].Edge, child); err != nil || tr.Expansions != 1 {
		t.Fatalf("tell after the outage: %+v, %v", tr, err)
	}
	var h api.Health
	if err := getJSON(hs.URL+"/healthz", &h); err != nil || h.Store == nil || !h.Store.OK || !strings.HasPrefix(h.Store.Store, "bbolt ") {
		t.Errorf("/healthz after the outage: %+v %+v, %v", h, h.Store, err)
	}
	resp, err = http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`triage_store_duration_seconds_count{op="append"} 6`, `triage_store_errors_total{op="append"} 3`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// metricValue reads one unlabelled counter from srv's /metrics.
func metricValue(t *testing.T, srv *serve.Server, name string) int {
	t.Helper()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// TestDurableLearnedStaysOnItsScorer: a learned session is refused, with
// the reason, by a server on another checkpoint, never re-ranked by it;
// that server can still end it and export its tree.
func TestDurableLearnedStaysOnItsScorer(t *testing.T) {
	st := boltStore(t)
	dir := t.TempDir()
	mk := func(id string) *httptest.Server {
		o := durableOpts(st)
		o.ScorerID, o.SessionsDir = id, dir
		srv, err := serve.New(o)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv.Handler())
		t.Cleanup(hs.Close)
		return hs
	}
	old, newer := &api.Client{BaseURL: mk("sha256:old").URL}, &api.Client{BaseURL: mk("sha256:new").URL}
	ctx := context.Background()
	tr := parityTrees()[0]
	recorded := func(e corpus.EdgeID) bool { return tr.Edges[e].Child != corpus.NoNode }
	sess, err := old.CreateSession(ctx, api.CreateSessionRequest{Policy: "learned", MaxDepth: tr.D, K: tr.K,
		Root: api.ProgramOf(tr, tr.Root(), recorded)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := old.Ask(ctx, sess.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = newer.Ask(ctx, sess.ID, 1)
	if !isStatus(err, http.StatusConflict) || !strings.Contains(err.Error(), "sha256:old") {
		t.Errorf("ask on another scorer: %v", err)
	}
	desc, err := newer.DeleteSession(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(desc.Outstanding) != len(a.Edges) {
		t.Errorf("deleted on another scorer: outstanding %v, asked %v", desc.Outstanding, a.Edges)
	}
	trees, err := shard.LoadTrees(dir)
	if err != nil || len(trees) != 1 {
		t.Fatalf("exported %d trees: %v", len(trees), err)
	}
	if _, err := old.Ask(ctx, sess.ID, 1); !isStatus(err, http.StatusNotFound) {
		t.Errorf("ask of a deleted session: %v", err)
	}
}

// TestDurableExpiry: a session idle in the store ends and is exported, by
// a server that never held it.
func TestDurableExpiry(t *testing.T) {
	st := boltStore(t)
	dir := t.TempDir()
	o := durableOpts(st)
	o.SessionIdle = 50 * time.Millisecond
	o.SessionsDir = dir
	first, err := serve.New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(first.Handler())
	defer hs.Close()
	c := &api.Client{BaseURL: hs.URL}
	sess, err := c.CreateSession(context.Background(), api.CreateSessionRequest{Policy: "bfs", Root: api.Program{Program: "x", Edits: []api.Edit{{Text: "a"}}}})
	if err != nil {
		t.Fatal(err)
	}
	// A second server (the first "crashed") expires it from the store.
	second, err := serve.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ln := listen(t)
	done := make(chan error, 1)
	go func() { done <- second.Serve(ctx, ln) }()
	for ctx.Err() == nil {
		if trees, _ := shard.LoadTrees(dir); len(trees) == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	if trees, err := shard.LoadTrees(dir); err != nil || len(trees) != 1 || trees[0].ID != "serve/"+sess.ID {
		t.Fatalf("expired session not exported: %v %v", len(trees), err)
	}
	if _, err := c.Ask(context.Background(), sess.ID, 1); !isStatus(err, http.StatusNotFound) {
		t.Errorf("ask of an expired session: %v", err)
	}
}

// TestDurableAskResent: an ask resent with the request_id of the
// session's last ask answers the same edges, also from a server rebuilt
// from the log; another id, or the same after a tell, asks anew.
func TestDurableAskResent(t *testing.T) {
	st := boltStore(t)
	var hss []*httptest.Server
	for range 2 {
		srv, err := serve.New(durableOpts(st))
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv.Handler())
		defer hs.Close()
		hss = append(hss, hs)
	}
	c := &api.Client{BaseURL: hss[0].URL}
	ctx := context.Background()
	root := api.Program{Program: "r", Edits: []api.Edit{{Text: "a"}, {Text: "b"}, {Text: "c"}}}
	sess, err := c.CreateSession(ctx, api.CreateSessionRequest{Policy: "bfs", K: 3, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(url, id string) []corpus.EdgeID {
		t.Helper()
		resp, err := http.Post(url+"/v1/sessions/"+sess.ID+"/ask", "application/json", strings.NewReader(`{"n":1,"request_id":"`+id+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a api.AskResponse
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("ask: %d %v", resp.StatusCode, err)
		}
		var out []corpus.EdgeID
		for _, e := range a.Edges {
			out = append(out, e.Edge)
		}
		return out
	}
	first := ask(hss[0].URL, "x")
	// The second server has no copy: it rebuilds the session, the last
	// ask's id with it.
	for _, tc := range []struct {
		url, id string
		same    bool
	}{
		{hss[0].URL, "x", true},
		{hss[1].URL, "x", true},
		{hss[0].URL, "y", false},
		{hss[0].URL, "x", false},
	} {
		got := ask(tc.url, tc.id)
		if fmt.Sprint(got) == fmt.Sprint(first) != tc.same {
			t.Errorf("ask %s: %v after %v, same=%v wanted", tc.id, got, first, tc.same)
		}
		if !tc.same {
			first = got
		}
	}
	resp, err := http.Post(hss[0].URL+"/v1/sessions/"+sess.ID+"/ask", "application/json", strings.NewReader(`{"request_id":"`+strings.Repeat("z", 129)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a request_id of 129 bytes: %d", resp.StatusCode)
	}
}

// BenchmarkDurableAskTell times one ask and one tell (over HTTP on
// loopback) with sessions in memory, in a bbolt file and in PostgreSQL
// (each record fsynced before the answer): go test -run '^$' -bench
// DurableAskTell ./search/serve.
func BenchmarkDurableAskTell(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) sessionlog.Store
	}{
		{"memory", func(*testing.B) sessionlog.Store { return nil }},
		{"bbolt", func(b *testing.B) sessionlog.Store {
			st, err := sessionlog.OpenBolt(filepath.Join(b.TempDir(), "s.db"))
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
		{"postgres", func(b *testing.B) sessionlog.Store {
			st, err := sessionlog.Open(context.Background(), pgtest.Start(b))
			if err != nil {
				b.Fatal(err)
			}
			return st
		}},
	}
	for _, sc := range stores {
		b.Run(sc.name, func(b *testing.B) {
			st := sc.open(b)
			o := serve.Options{}
			if st != nil {
				defer st.Close()
				o = durableOpts(st)
			}
			srv, err := serve.New(o)
			if err != nil {
				b.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			defer hs.Close()
			c := &api.Client{BaseURL: hs.URL}
			ctx := context.Background()
			edits := []api.Edit{{Text: "a"}, {Text: "b"}}
			newSession := func() string {
				s, err := c.CreateSession(ctx, api.CreateSessionRequest{Policy: "bfs", K: 2, MaxDepth: 8, Budget: 200,
					Root: api.Program{Program: "r", Edits: edits}})
				if err != nil {
					b.Fatal(err)
				}
				return s.ID
			}
			id := newSession()
			child := api.Program{Program: "c", Tests: []api.Test{{Name: "t"}}, Edits: edits}
			b.ResetTimer()
			for b.Loop() {
				a, err := c.Ask(ctx, id, 1)
				if err != nil {
					b.Fatal(err)
				}
				if len(a.Edges) == 0 {
					b.StopTimer()
					id = newSession()
					b.StartTimer()
					continue
				}
				if _, err := c.Tell(ctx, id, a.Edges[0].Edge, child); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
