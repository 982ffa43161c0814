package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"triage/search/serve"
)

// freeAddr returns a loopback address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestServeCommand starts `triage serve` on a stand-in scorer, checks it
// answers with the token, and stops it by cancelling its context (what
// SIGTERM does through main's signal.NotifyContext).
func TestServeCommand(t *testing.T) {
	addr := freeAddr(t)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cli := newCLI()
	cli.SetArgs([]string{"serve", "--addr", addr, "--stand-in", "0", "--token-file", tok})
	done := make(chan error, 1)
	go func() { done <- cli.ExecuteContext(ctx) }()
	var resp *http.Response
	for i := 0; i < 500; i++ {
		req, _ := http.NewRequest("GET", "http://"+addr+"/metrics", nil)
		req.Header.Set("Authorization", "Bearer abc")
		var err error
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if resp == nil {
		t.Fatal("serve never answered")
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("metrics with the token: %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve after cancel: %v", err)
	}
}

func TestServeBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "--stand-in", "fast"}, exitUsage, "--stand-in"},
		{[]string{"serve", "--stand-in", "1ms", "--checkpoint", "x"}, exitUsage, "exclude each other"},
		{[]string{"serve", "--token-file", "/nonexistent/token"}, exitUsage, "--token-file"},
		{[]string{"serve", "--stand-in", "0", "--addr", "256.0.0.1:99999"}, exitUsage, "--addr"},
		{[]string{"serve", "--stand-in", "0", "--batch-edges", "-1"}, exitUsage, "batching"},
		{[]string{"serve", "--stand-in", "0", "--max-sessions", "-1"}, exitUsage, "negative"},
		{[]string{"bench", "serve", "--stand-in", "0", "--modes", "fast"}, exitUsage, "--modes"},
		{[]string{"bench", "serve", "--stand-in", "0", "--clients", "0"}, exitUsage, "--clients"},
	} {
		code, out := runEvalCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, output %q; want %d with %q", tc.args, code, out, tc.code, tc.want)
		}
	}
}

func TestBenchServe(t *testing.T) {
	code, out := runEvalCLI(t, "bench", "serve", "--stand-in", "1ms+100us/edge", "--clients", "4", "--duration", "300ms", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	var rows []serve.LoadRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(rows) != 2 || rows[0].Mode != "batch" || rows[1].Mode != "nobatch" {
		t.Fatalf("rows: %+v", rows)
	}
	for _, r := range rows {
		if r.Requests == 0 || r.Errors != 0 || r.EdgesPerSec <= 0 || r.P50Ms <= 0 || r.P99Ms < r.P50Ms {
			t.Errorf("%s: %+v", r.Mode, r.LoadResult)
		}
	}
}
