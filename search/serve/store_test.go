package serve

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestJanitorExpires checks the sweep the janitor runs: idle sessions end
// (and are counted), fresh ones stay.
func TestJanitorExpires(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	srv, err := New(Options{SessionIdle: time.Minute, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	create := func() {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("POST", "/v1/sessions", strings.NewReader(`{"policy":"bfs","root":{"program":"p"}}`)))
		if rec.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
	}
	create()
	now = now.Add(50 * time.Second)
	create()
	now = now.Add(20 * time.Second)
	srv.expire()
	if n := srv.sessions.len(); n != 1 {
		t.Errorf("%d sessions after the sweep, want 1", n)
	}
	if n := srv.metrics.get(&srv.metrics.sessionsExpired); n != 1 {
		t.Errorf("expired counter %d, want 1", n)
	}
	now = now.Add(time.Hour)
	srv.expire()
	if n := srv.sessions.len(); n != 0 {
		t.Errorf("%d sessions after an hour, want 0", n)
	}
}
