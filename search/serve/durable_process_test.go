package serve_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"triage/corpus"
	"triage/search/serve"
	"triage/search/serve/api"
	"triage/search/serve/sessionlog"
	"triage/search/serve/sessionlog/pgtest"
)

// The child process of these tests: a server on the store and address
// these variables name.
const (
	helperStoreEnv = "TRIAGE_TEST_SERVE_STORE"
	helperAddrEnv  = "TRIAGE_TEST_SERVE_ADDR"
)

// TestHelperServe is no test: it is the server (a stand-in scorer,
// sessions in the store $TRIAGE_TEST_SERVE_STORE) in a child process of
// the tests below, started from this test binary so that they can kill -9
// a real server process. SIGTERM stops it gracefully.
func TestHelperServe(t *testing.T) {
	spec, addr := os.Getenv(helperStoreEnv), os.Getenv(helperAddrEnv)
	if spec == "" {
		t.Skip("the child process of the durable serve tests")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := sessionlog.Open(ctx, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "store:", err)
		os.Exit(2)
	}
	srv, err := serve.New(durableOpts(st))
	if err == nil {
		var ln net.Listener
		if ln, err = net.Listen("tcp", addr); err == nil {
			err = srv.Serve(ctx, ln)
		}
	}
	st.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln := listen(t)
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// serveProc is a server in a child process.
type serveProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
}

// startServe starts a server process on store at addr and waits until
// /healthz answers 200.
func startServe(addr, store string) (*serveProc, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), helperStoreEnv+"="+store, helperAddrEnv+"="+addr)
	p := &serveProc{cmd: cmd, exited: make(chan struct{}), log: &bytes.Buffer{}}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("serve on %s exited: %s", store, p.log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.kill9()
	return nil, fmt.Errorf("serve on %s never became healthy: %s", store, p.log)
}

// kill9 kills the server with SIGKILL: no shutdown, nothing flushed.
func (p *serveProc) kill9() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// resending is a client transport that resends a request whose answer
// never came (the server died or was down), as a client of a restarting
// server does, until the deadline; hosts, when set, are used in turn.
type resending struct {
	deadline time.Time
	hosts    []string
	n        atomic.Int64
	resent   atomic.Int64
}

func (rt *resending) RoundTrip(req *http.Request) (*http.Response, error) {
	tr := http.DefaultTransport
	for {
		r := req.Clone(req.Context())
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		if len(rt.hosts) > 0 {
			r.URL.Host = rt.hosts[int(rt.n.Add(1))%len(rt.hosts)]
			r.Host = r.URL.Host
		}
		resp, err := tr.RoundTrip(r)
		if err == nil || time.Now().After(rt.deadline) || req.Context().Err() != nil {
			return resp, err
		}
		rt.resent.Add(1)
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeKill9 drives sessions of every policy over the recorded trees
// through a server on a bbolt store in a child process that is killed
// with SIGKILL at random points (requests in flight) and restarted on the
// same store; the client resends what got no answer. Every session asks
// for the same edges as an uninterrupted run and ends the same way: no
// acknowledged tell is lost, no ask is answered twice differently.
func TestServeKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: restarts server processes")
	}
	trees := parityTrees()
	cases := policyCases([]uint64{1}, []int{1, 2})
	want := uninterrupted(t, trees, cases)

	store := filepath.Join(t.TempDir(), "sessions.db")
	addr := freeAddr(t)
	proc, err := startServe(addr, store)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	killerDone := make(chan struct{})
	var kills int
	var restartErr error
	rng := rand.New(rand.NewPCG(7, 9))
	go func() {
		defer close(killerDone)
		for {
			select {
			case <-stop:
				proc.kill9()
				return
			case <-time.After(time.Duration(50+rng.IntN(400)) * time.Millisecond):
			}
			proc.kill9()
			kills++
			if proc, restartErr = startServe(addr, store); restartErr != nil {
				return
			}
		}
	}()
	rt := &resending{deadline: time.Now().Add(5 * time.Minute)}
	got := driveAll(t, &api.Client{BaseURL: "http://" + addr, HTTP: &http.Client{Transport: rt}}, trees, cases)
	close(stop)
	<-killerDone
	if restartErr != nil {
		t.Fatal(restartErr)
	}
	compareAll(t, trees, cases, got, want)
	if kills == 0 || rt.resent.Load() == 0 {
		t.Fatalf("%d kills, %d requests resent: the test did not interrupt anything", kills, rt.resent.Load())
	}
	t.Logf("%d sessions, %d kill -9, %d requests resent", len(got), kills, rt.resent.Load())
}

// TestServeReplicas: two server processes on one PostgreSQL
// store, a client alternating between them request by request, the same
// searches as one uninterrupted server.
func TestServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts PostgreSQL and two server processes")
	}
	url := pgtest.Start(t)
	trees := parityTrees()
	trees = trees[:3]
	cases := policyCases([]uint64{1}, []int{1, 2})
	want := uninterrupted(t, trees, cases)
	var hosts []string
	for range 2 {
		addr := freeAddr(t)
		p, err := startServe(addr, url)
		if err != nil {
			t.Fatal(err)
		}
		defer p.kill9()
		hosts = append(hosts, addr)
	}
	rt := &resending{deadline: time.Now().Add(5 * time.Minute), hosts: hosts}
	got := driveAll(t, &api.Client{BaseURL: "http://" + hosts[0], HTTP: &http.Client{Transport: rt}}, trees, cases)
	compareAll(t, trees, cases, got, want)
	if rt.n.Load() < 10 {
		t.Fatalf("only %d requests", rt.n.Load())
	}
}

// driveAll drives every case over every tree through c.
func driveAll(t *testing.T, c *api.Client, trees []*corpus.Tree, cases []parityCase) map[string]outcome {
	t.Helper()
	out := map[string]outcome{}
	for _, tr := range trees {
		for _, cs := range cases {
			o, err := driveSession(context.Background(), c, tr, cs)
			if err != nil {
				t.Fatalf("%+v on %s: %v", cs, tr.ID, err)
			}
			out[key(tr, cs)] = o
		}
	}
	return out
}

func compareAll(t *testing.T, trees []*corpus.Tree, cases []parityCase, got, want map[string]outcome) {
	t.Helper()
	for _, tr := range trees {
		for _, cs := range cases {
			if err := same(got[key(tr, cs)], want[key(tr, cs)]); err != nil {
				t.Errorf("%+v on %s: %v", cs, tr.ID, err)
			}
		}
	}
}
