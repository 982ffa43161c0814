package serve_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"triage/search/serve/api"

	"triage/search/serve"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// badCase is one request every handler must refuse cleanly.
type badCase struct {
	name, method, path, body string
	code                     int
	want                     string // in the error message
}

// badCases are bad inputs for every route; {id} is a live session with
// edges asked, {gone} a session id that does not exist.
func badCases() []badCase {
	root := `{"program":"x","tests":[{"name":"t","passed":false}],"edits":[{"text":"a"}]}`
	var cs []badCase
	for _, r := range []struct{ path, valid string }{
		{"/v1/priorities", `{"edges":[]}`},
		{"/v1/sessions", `{"policy":"bfs","root":` + root + `}`},
		{"/v1/sessions/{id}/ask", `{"n":1}`},
		{"/v1/sessions/{id}/tell", `{"edge":0,"child":{"program":"y"}}`},
	} {
		cs = append(cs,
			badCase{"truncated", "POST", r.path, r.valid[:len(r.valid)/2], 400, "truncated JSON"},
			badCase{"malformed", "POST", r.path, `{"a":,}`, 400, "malformed JSON"},
			badCase{"not an object", "POST", r.path, `[1,2]`, 400, "cannot use JSON array"},
			badCase{"unknown field", "POST", r.path, `{"bogus_field":1}`, 400, `unknown field \"bogus_field\"`},
			badCase{"trailing data", "POST", r.path, r.valid + `{}`, 400, "trailing data"},
			badCase{"over the body limit", "POST", r.path, `{"x":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "request body over"},
		)
		if r.path != "/v1/sessions/{id}/ask" { // ask takes an empty body as n = 1
			cs = append(cs, badCase{"empty", "POST", r.path, "", 400, "empty body"})
		}
	}
	cs = append(cs,
		badCase{"huge n", "POST", "/v1/sessions/{id}/ask", `{"n":1e400}`, 400, "field n"},
		badCase{"big n", "POST", "/v1/sessions/{id}/ask", `{"n":99999999999999999999}`, 400, "field n"},
		badCase{"n over the limit", "POST", "/v1/sessions/{id}/ask", `{"n":65}`, 400, "n 65 outside"},
		badCase{"negative n", "POST", "/v1/sessions/{id}/ask", `{"n":-3}`, 400, "n -3 outside"},
		badCase{"fractional n", "POST", "/v1/sessions/{id}/ask", `{"n":1.5}`, 400, "field n"},
		badCase{"huge edge id", "POST", "/v1/sessions/{id}/tell", `{"edge":1e20,"child":{"program":"y"}}`, 400, "field edge"},
		badCase{"edge never asked", "POST", "/v1/sessions/{id}/tell", `{"edge":2147483647,"child":{"program":"y"}}`, 409, "never asked"},
		badCase{"huge token count", "POST", "/v1/sessions/{id}/tell", `{"edge":0,"child":{"program":"y","revise_tokens":1e300}}`, 400, "revise_tokens"},
		badCase{"NaN-like pass rate", "POST", "/v1/sessions/{id}/tell", `{"edge":0,"child":{"program":"y","pass_rate":-0.5}}`, 400, "pass_rate -0.5"},
		badCase{"string for a number", "POST", "/v1/sessions/{id}/tell", `{"edge":"0","child":{}}`, 400, "field edge"},
		badCase{"negative budget", "POST", "/v1/sessions", `{"policy":"bfs","budget":-4,"root":` + root + `}`, 400, "budget -4"},
		badCase{"huge budget", "POST", "/v1/sessions", `{"policy":"bfs","budget":1e18,"root":` + root + `}`, 400, "budget"},
		badCase{"seed overflow", "POST", "/v1/sessions", `{"policy":"bfs","seed":-1,"root":` + root + `}`, 400, "field seed"},
		badCase{"nested unknown field", "POST", "/v1/sessions", `{"policy":"bfs","root":{"program":"x","colour":1}}`, 400, `unknown field \"colour\"`},
		badCase{"huge depth", "POST", "/v1/priorities", `{"edges":[{"depth":1000000000,"max_depth":1000000000,"remaining":0}]}`, 400, "edges[0]: max_depth"},
		badCase{"exponent for an int", "POST", "/v1/priorities", `{"edges":[{"depth":1e9}]}`, 400, "field edges.depth"},
		badCase{"too many bins", "POST", "/v1/priorities", `{"edges":[{"depth":0,"max_depth":100000,"remaining":100000}]}`, 400, "max_depth 100000"},
		badCase{"negative rate", "POST", "/v1/priorities", `{"edges":[{"pass_rate":-1,"max_depth":4,"remaining":4}]}`, 400, "pass_rate -1"},
	)
	for _, p := range []string{"/v1/sessions/{gone}", "/v1/sessions/{gone}/tree", "/v1/sessions/{gone}/ask", "/v1/sessions/{gone}/tell"} {
		m := "GET"
		body := ""
		if strings.HasSuffix(p, "ask") || strings.HasSuffix(p, "tell") {
			m, body = "POST", `{"edge":0,"child":{"program":"y"}}`
			if strings.HasSuffix(p, "ask") {
				body = `{"n":1}`
			}
		}
		cs = append(cs, badCase{"unknown session", m, p, body, 404, "no session"})
	}
	cs = append(cs,
		badCase{"unknown session delete", "DELETE", "/v1/sessions/{gone}", "", 404, "no session"},
		badCase{"unknown route", "GET", "/v2/everything", "", 404, "no route"},
		badCase{"wrong method", "GET", "/v1/priorities", "", 405, "not allowed"},
		badCase{"wrong method on a session", "PUT", "/v1/sessions/{id}", "", 405, "allowed: GET, DELETE"},
	)
	return cs
}

// liveSession creates a session with its one root edge asked.
func liveSession(t *testing.T, c *api.Client) string {
	t.Helper()
	s := mustCreate(t, c, api.CreateSessionRequest{Policy: "uct", Root: rootProgram(3)})
	if _, err := c.Ask(context.Background(), s.ID, 1); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// TestBadInputs sends every bad case over a real listener: each gets its
// status and a JSON error naming the problem; no handler panics; after
// shutdown no goroutine is left.
func TestBadInputs(t *testing.T) {
	before := runtime.NumGoroutine()
	l := startServing(t, serve.Options{Scorer: serve.NewStandIn(0, 0), MaxBodyBytes: 64 << 10})
	base, c := l.base, l.c
	id := liveSession(t, c)
	for _, bc := range badCases() {
		path := strings.NewReplacer("{id}", id, "{gone}", "0123456789abcdef0123456789abcdef").Replace(bc.path)
		req, err := http.NewRequest(bc.method, base+path, strings.NewReader(bc.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.HTTP.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", bc.name, bc.path, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e api.Error
		if resp.StatusCode != bc.code || json.Unmarshal(data, &e) != nil || !strings.Contains(string(data), bc.want) {
			t.Errorf("%s (%s %s): %d %s; want %d with %q", bc.name, bc.method, bc.path, resp.StatusCode, data, bc.code, bc.want)
		}
	}
	// The session is intact: its asked edge can still be told.
	if r, err := c.Tell(context.Background(), id, 0, child(false, 0)); err != nil || r.Expansions != 1 {
		t.Errorf("session after the bad inputs: %+v %v", r, err)
	}
	resp, err := c.HTTP.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(m), "triage_http_panics_total 0\n") {
		t.Errorf("a handler panicked:\n%s", grep(string(m), "panics"))
	}
	l.stop()
	checkGoroutines(t, before)
}

// FuzzHandlers sends arbitrary bodies to every route that reads one. No
// input may panic a handler or get a 5xx, and every refusal is a JSON
// error.
func FuzzHandlers(f *testing.F) {
	for _, bc := range badCases() {
		f.Add(bc.body)
	}
	for _, s := range []string{
		`{"edges":[{"feedback":"f","diagnosis":"d","edit":"e","pass_rate":0.5,"failed_frac":0.5,"depth":1,"max_depth":4,"remaining":3}]}`,
		`{"policy":"learned","budget":3,"root":{"program":"p","edits":[{"text":"a"},{"text":"b"}]}}`,
		`{"policy":"rex","params":{"C":5},"seed":18446744073709551615,"root":{"program":"p","tests":[{"name":"a","passed":true}],"edits":[]}}`,
		`{"n":3}`, `{"edge":0,"child":{"program":"q","status":"timeout","edits":[{"text":"x","payload":"y"}]}}`,
		"\x00\xff", `{"edges":null}`, `{"root":null}`, `{"edge":0,"child":null}`,
	} {
		f.Add(s)
	}
	srv, err := serve.New(serve.Options{Scorer: serve.NewStandIn(0, 0), MaxBodyBytes: 1 << 16, MaxBudget: 20, Logger: quietLogger()})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()
	create := httptest.NewRecorder()
	h.ServeHTTP(create, httptest.NewRequest("POST", "/v1/sessions", strings.NewReader(`{"policy":"learned","budget":20,"root":{"program":"p","edits":[{"text":"a"},{"text":"b"},{"text":"c"}]}}`)))
	var s api.Session
	if err := json.Unmarshal(create.Body.Bytes(), &s); err != nil {
		f.Fatal(err)
	}
	paths := []string{"/v1/priorities", "/v1/sessions", "/v1/sessions/" + s.ID + "/ask", "/v1/sessions/" + s.ID + "/tell"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range paths {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", p, strings.NewReader(body)))
			if rec.Code >= 500 {
				t.Fatalf("POST %s %q: %d %s", p, body, rec.Code, rec.Body)
			}
			var e api.Error
			if rec.Code >= 400 && (json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error == "") {
				t.Fatalf("POST %s %q: %d without a JSON error: %s", p, body, rec.Code, rec.Body)
			}
			var made api.Session
			if rec.Code == 201 && json.Unmarshal(rec.Body.Bytes(), &made) == nil {
				// Sessions are bounded: end the ones the fuzzer makes.
				del := httptest.NewRecorder()
				h.ServeHTTP(del, httptest.NewRequest("DELETE", "/v1/sessions/"+made.ID, nil))
				if del.Code != 200 {
					t.Fatalf("delete a fuzzed session: %d %s", del.Code, del.Body)
				}
			}
		}
	})
}
