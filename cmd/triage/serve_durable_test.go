package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"triage/corpus"
	"triage/search/serve"
	"triage/search/serve/servetest"
	"triage/search/serve/sessionlog"
	"triage/search/serve/sessionlog/pgtest"
)

// helperEnv holds the arguments of `triage serve` in a child process, one
// per line.
const helperEnv = "TRIAGE_TEST_SERVE_ARGS"

// TestHelperServe is no test: it is `triage serve` in a child process of
// the tests below (started from this test binary, so that they can kill -9
// a real server process).
func TestHelperServe(t *testing.T) {
	args := os.Getenv(helperEnv)
	if args == "" {
		t.Skip("the child process of the durable serve tests")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cli := newCLI()
	cli.SetArgs(strings.Split(args, "\n"))
	err := cli.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
	}
	os.Exit(exitCode(err))
}

// serveProc is `triage serve` in a child process.
type serveProc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
}

// startServe starts `triage serve --addr addr args...` and waits until
// /healthz answers 200.
func startServe(addr string, args ...string) (*serveProc, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), helperEnv+"="+strings.Join(append([]string{"serve", "--addr", addr}, args...), "\n"))
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
			return nil, fmt.Errorf("serve %v exited: %s", args, p.log)
		case <-time.After(20 * time.Millisecond):
		}
	}
	p.kill9()
	return nil, fmt.Errorf("serve %v never became healthy: %s", args, p.log)
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

// durableCases are every policy, seed 1, batches of 1 and 2.
func durableCases() []servetest.Case { return servetest.Cases([]uint64{1}, []int{1, 2}) }

// referenceOutcomes drives every case over every tree through one
// in-process server without a store, never interrupted.
func referenceOutcomes(t *testing.T, trees []*corpus.Tree, cases []servetest.Case) []servetest.Outcome {
	t.Helper()
	sc, err := serve.ParseStandIn("0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{Scorer: sc})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	return driveAll(t, &serve.Client{BaseURL: hs.URL}, trees, cases)
}

func driveAll(t *testing.T, c *serve.Client, trees []*corpus.Tree, cases []servetest.Case) []servetest.Outcome {
	t.Helper()
	var out []servetest.Outcome
	for _, tr := range trees {
		for _, cs := range cases {
			o, err := servetest.DriveSession(context.Background(), c, tr, cs)
			if err != nil {
				t.Fatalf("%+v on %s: %v", cs, tr.ID, err)
			}
			out = append(out, o)
		}
	}
	return out
}

func compareOutcomes(t *testing.T, trees []*corpus.Tree, cases []servetest.Case, got, want []servetest.Outcome) {
	t.Helper()
	i := 0
	for _, tr := range trees {
		for _, cs := range cases {
			if err := servetest.Same(got[i], want[i]); err != nil {
				t.Errorf("%+v on %s: %v", cs, tr.ID, err)
			}
			i++
		}
	}
}

// TestServeKill9 drives sessions of every policy over the recorded trees
// through `triage serve --store FILE` in a child process that is killed
// with SIGKILL at random points (requests in flight) and restarted on the
// same store; the client resends what got no answer. Every session asks
// for the same edges as an uninterrupted run and ends the same way: no
// acknowledged tell is lost, no ask is answered twice differently.
func TestServeKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: restarts server processes")
	}
	trees, err := servetest.RoundTrip(servetest.Trees(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cases := durableCases()
	want := referenceOutcomes(t, trees, cases)

	store := filepath.Join(t.TempDir(), "sessions.db")
	addr := freeAddr(t)
	args := []string{"--stand-in", "0", "--store", store}
	proc, err := startServe(addr, args...)
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
			if proc, restartErr = startServe(addr, args...); restartErr != nil {
				return
			}
		}
	}()
	rt := &resending{deadline: time.Now().Add(5 * time.Minute)}
	got := driveAll(t, &serve.Client{BaseURL: "http://" + addr, HTTP: &http.Client{Transport: rt}}, trees, cases)
	close(stop)
	<-killerDone
	if restartErr != nil {
		t.Fatal(restartErr)
	}
	compareOutcomes(t, trees, cases, got, want)
	if kills == 0 || rt.resent.Load() == 0 {
		t.Fatalf("%d kills, %d requests resent: the test did not interrupt anything", kills, rt.resent.Load())
	}
	t.Logf("%d sessions, %d kill -9, %d requests resent", len(got), kills, rt.resent.Load())
}

// TestServeReplicas: two `triage serve` processes on one PostgreSQL
// store, a client alternating between them request by request, the same
// searches as one uninterrupted server.
func TestServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts PostgreSQL and two server processes")
	}
	url := pgtest.Start(t)
	trees, err := servetest.RoundTrip(servetest.Trees(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	trees = trees[:3]
	cases := durableCases()
	want := referenceOutcomes(t, trees, cases)
	var hosts []string
	for range 2 {
		addr := freeAddr(t)
		p, err := startServe(addr, "--stand-in", "0", "--store", url)
		if err != nil {
			t.Fatal(err)
		}
		defer p.kill9()
		hosts = append(hosts, addr)
	}
	rt := &resending{deadline: time.Now().Add(5 * time.Minute), hosts: hosts}
	got := driveAll(t, &serve.Client{BaseURL: "http://" + hosts[0], HTTP: &http.Client{Transport: rt}}, trees, cases)
	compareOutcomes(t, trees, cases, got, want)
	if rt.n.Load() < 10 {
		t.Fatalf("only %d requests", rt.n.Load())
	}
}

// TestServeStoreBadInput: a store that cannot be used is bad input (exit
// 2) with the reason, before the server listens.
func TestServeStoreBadInput(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.db")
	st, err := sessionlog.OpenBolt(newer)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	bumpBoltFormat(t, newer)
	held := filepath.Join(dir, "held.db")
	h, err := sessionlog.OpenBolt(held)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, tc := range []struct {
		store, want string
	}{
		{newer, "newer version"},
		{filepath.Join(dir, "no", "such", "dir", "s.db"), "--store"},
		{pgtest.URL(filepath.Join(dir, "nosocket"), "nobody", "triage") + "&connect_timeout=2", "--store"},
		{"postgres://[::1", "--store"},
	} {
		code, out := runEvalCLI(t, "serve", "--stand-in", "0", "--addr", "127.0.0.1:0", "--store", tc.store)
		if code != exitUsage || !strings.Contains(out, tc.want) {
			t.Errorf("--store %s: exit %d, %q; want %d with %q", tc.store, code, out, exitUsage, tc.want)
		}
	}
	// A held bbolt file fails after its one-second lock wait.
	code, out := runEvalCLI(t, "serve", "--stand-in", "0", "--addr", "127.0.0.1:0", "--store", held)
	if code != exitUsage || !strings.Contains(out, "another process") {
		t.Errorf("held store: exit %d, %q", code, out)
	}
}

// bumpBoltFormat marks the bbolt store at path as written by a newer
// version.
func bumpBoltFormat(t *testing.T, path string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte(fmt.Sprint(sessionlog.FormatVersion+1)))
	})
	if err != nil {
		t.Fatal(err)
	}
}
