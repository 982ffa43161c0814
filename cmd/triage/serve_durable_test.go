package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"triage/search/serve/api"
	"triage/search/serve/sessionlog"
	"triage/search/serve/sessionlog/pgtest"
)

// TestServeStoreResumes: `triage serve --store FILE`, stopped and started
// again on the same file, goes on with an open session where it was (the
// kill -9 and replica tests of the server are in search/serve).
func TestServeStoreResumes(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions.db")
	addr := freeAddr(t)
	c := &api.Client{BaseURL: "http://" + addr}
	run := func(body func()) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		cli := newCLI()
		cli.SetArgs([]string{"serve", "--addr", addr, "--stand-in", "0", "--store", store})
		done := make(chan error, 1)
		go func() { done <- cli.ExecuteContext(ctx) }()
		for {
			resp, err := http.Get("http://" + addr + "/healthz")
			if err == nil {
				resp.Body.Close()
				break
			}
			select {
			case err := <-done:
				t.Fatalf("serve ended: %v", err)
			case <-time.After(10 * time.Millisecond):
			}
		}
		body()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve after cancel: %v", err)
		}
	}
	ctx := context.Background()
	var id string
	var asked []api.AskedEdge
	run(func() {
		sess, err := c.CreateSession(ctx, api.CreateSessionRequest{Policy: "learned",
			Root: api.Program{Program: "r", Edits: []api.Edit{{Text: "a"}, {Text: "b"}}}})
		if err != nil {
			t.Fatal(err)
		}
		id = sess.ID
		a, err := c.Ask(ctx, id, 1)
		if err != nil || len(a.Edges) != 1 {
			t.Fatalf("ask: %+v, %v", a, err)
		}
		asked = a.Edges
	})
	run(func() {
		got, err := c.Session(ctx, id)
		if err != nil {
			t.Fatalf("the session after a restart: %v", err)
		}
		if len(got.Outstanding) != 1 || got.Outstanding[0] != asked[0].Edge || got.Frontier != 1 {
			t.Errorf("after a restart: outstanding %v frontier %d; asked %v", got.Outstanding, got.Frontier, asked)
		}
		if tr, err := c.Tell(ctx, id, asked[0].Edge, api.Program{Program: "c", Tests: []api.Test{{Name: "t", Passed: true}}}); err != nil || !tr.Solved {
			t.Errorf("tell after a restart: %+v, %v", tr, err)
		}
	})
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
