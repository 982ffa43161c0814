package openai

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/corpus"
	"triage/search/proposer/openai/openaitest"
)

type reply = openaitest.Reply

func newTestProposer(t *testing.T, opts Options, script ...reply) (*Proposer, *openaitest.Server, *[]time.Duration) {
	t.Helper()
	fs := openaitest.New(t, script...)
	opts.BaseURL = fs.URL
	opts.Model = openaitest.ModelName
	opts.APIKey = openaitest.APIKey
	p, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	var mu sync.Mutex
	p.client.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return p, fs, &waits
}

var goodProposal = "Here is my analysis.\n```json\n" +
	`{"diagnosis": "test_edge expects 3 but got 2: the loop stops early", "edits": [` +
	`{"line": 7, "change": "change ` + "`i < n`" + ` to ` + "`i <= n`" + `", "reason": "test_edge expects 3 but got 2"},` +
	`{"line": "9", "change": "return total + 1", "reason": "off by one"},` +
	`{"line": null, "change": "", "reason": "empty edits are dropped"},` +
	`{"change": "initialize total to 1", "reason": "guess"}]}` + "\n```"

var req = corpus.ProposeRequest{
	Task:    &corpus.Task{ID: "t1", Question: "Sum the list."},
	Program: "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n",
	Exec:    corpus.Execution{Status: corpus.StatusOK, PassRate: 0.5, Feedback: "FAILED test_edge - assert 2 == 3"},
	K:       3, Key: "tree/0",
}

func TestProposeParsesStructuredEdits(t *testing.T) {
	p, fs, _ := newTestProposer(t, Options{N: 1}, reply{Contents: []string{goodProposal}})
	got, err := p.Propose(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Failed || got.OutputTokens != 42 || got.TokensEstimated {
		t.Fatalf("proposal = %+v", got)
	}
	want := []string{
		"Line 7: change `i < n` to `i <= n`; test_edge expects 3 but got 2",
		"Line 9: return total + 1; off by one",
		"initialize total to 1; guess",
	}
	if len(got.Edits) != len(want) {
		t.Fatalf("edits = %+v", got.Edits)
	}
	for i, w := range want {
		if got.Edits[i].Text != w {
			t.Errorf("edit %d = %q, want %q", i, got.Edits[i].Text, w)
		}
	}
	r := fs.Requests()[0].Raw
	if r["temperature"] != float64(0) {
		t.Errorf("temperature 0 not sent explicitly: %v", r["temperature"])
	}
	if r["model"] != "qwen3-test" || r["max_tokens"] != float64(2048) {
		t.Errorf("request = %v", r)
	}
	msgs := r["messages"].([]any)
	user := msgs[1].(map[string]any)["content"].(string)
	for _, s := range []string{"Sum the list.", "  2 |     total = 0", "FAILED test_edge", "exactly 3 different"} {
		if !strings.Contains(user, s) {
			t.Errorf("prompt lacks %q:\n%s", s, user)
		}
	}
}

func TestProposePoolsNChoicesAndEstimatesWithoutUsage(t *testing.T) {
	a := `{"diagnosis":"d1","edits":[{"line":1,"change":"A","reason":"r"}]}`
	b := `{"diagnosis":"d2","edits":[{"line":1,"change":"A","reason":"r"},{"line":2,"change":"B","reason":"r"}]}`
	p, fs, _ := newTestProposer(t, Options{N: 2, Temperature: 0.7}, reply{Contents: []string{a, b}, NoUsage: true})
	got, err := p.Propose(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got.Diagnosis != "d1" || len(got.Edits) != 2 || got.Edits[1].Text != "Line 2: B; r" {
		t.Fatalf("pooled = %+v", got)
	}
	if !got.TokensEstimated || got.OutputTokens <= 0 {
		t.Fatalf("tokens = %d estimated=%v", got.OutputTokens, got.TokensEstimated)
	}
	if fs.Requests()[0].Raw["n"] != float64(2) || fs.Requests()[0].Raw["temperature"] != 0.7 {
		t.Errorf("request = %v", fs.Requests()[0].Raw)
	}
}

func TestMalformedContentIsRecordedNotFatal(t *testing.T) {
	for _, content := range []string{
		"I think the bug is on line 3 but I am not sure.",
		`{"diagnosis": "x", "edits": []}`,
		`{"diagnosis": "x", "edits": [{"line": 1, "change": "y"`,
		"",
	} {
		p, _, _ := newTestProposer(t, Options{}, reply{Contents: []string{content}})
		got, err := p.Propose(context.Background(), req)
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if !got.Failed || got.Raw != content || len(got.Edits) != 0 {
			t.Errorf("%q: proposal = %+v", content, got)
		}
	}
}

func TestRetriesRateLimitsAndServerErrors(t *testing.T) {
	p, fs, waits := newTestProposer(t, Options{BaseBackoff: time.Millisecond, MaxBackoff: 10 * time.Second},
		reply{Status: 429, RetryAfter: "2"},
		reply{Status: 500},
		reply{Status: 503},
		reply{Contents: []string{goodProposal}})
	got, err := p.Propose(context.Background(), req)
	if err != nil || got.Failed {
		t.Fatalf("got %+v, %v", got, err)
	}
	if len(fs.Requests()) != 4 || len(*waits) != 3 {
		t.Fatalf("%d requests, waits %v", len(fs.Requests()), *waits)
	}
	if (*waits)[0] != 2*time.Second {
		t.Errorf("Retry-After not honoured: first wait %v", (*waits)[0])
	}
	for _, w := range (*waits)[1:] {
		if w > 4*time.Millisecond {
			t.Errorf("backoff %v above its cap", w)
		}
	}
}

func TestSlowResponseTimesOutAndRetries(t *testing.T) {
	p, fs, _ := newTestProposer(t, Options{RequestTimeout: 50 * time.Millisecond},
		reply{Delay: 2 * time.Second, Contents: []string{goodProposal}},
		reply{Contents: []string{goodProposal}})
	got, err := p.Propose(context.Background(), req)
	if err != nil || got.Failed {
		t.Fatalf("got %+v, %v", got, err)
	}
	if len(fs.Requests()) != 2 {
		t.Fatalf("%d requests, want 2", len(fs.Requests()))
	}
}

func TestGivesUpAfterRetriesAndOnClientErrors(t *testing.T) {
	p, fs, waits := newTestProposer(t, Options{MaxRetries: 2}, reply{Status: 500})
	if _, err := p.Propose(context.Background(), req); err == nil || !strings.Contains(err.Error(), "after 3 attempt") {
		t.Fatalf("err = %v", err)
	}
	if len(fs.Requests()) != 3 || len(*waits) != 2 {
		t.Fatalf("%d requests %d waits", len(fs.Requests()), len(*waits))
	}
	p, fs, _ = newTestProposer(t, Options{}, reply{Status: 400})
	if _, err := p.Propose(context.Background(), req); err == nil {
		t.Fatal("400 gave no error")
	}
	if len(fs.Requests()) != 1 {
		t.Fatalf("400 retried: %d requests", len(fs.Requests()))
	}
	p, fs, _ = newTestProposer(t, Options{MaxRetries: 1}, reply{RawBody: "{not json"})
	if _, err := p.Propose(context.Background(), req); err == nil {
		t.Fatal("undecodable body gave no error")
	}
	if len(fs.Requests()) != 2 {
		t.Fatalf("undecodable body: %d requests, want 2", len(fs.Requests()))
	}
}

// A 401 is not retried, and the error says the one attempt made and that
// the key was refused.
func TestUnauthorizedIsOneAttempt(t *testing.T) {
	fs := openaitest.New(t, reply{Contents: []string{goodProposal}})
	p, err := New(Options{BaseURL: fs.URL, Model: openaitest.ModelName, APIKey: "wrong", MaxRetries: 5})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Propose(context.Background(), req)
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "after 1 attempt(s)") {
		t.Fatalf("err = %v, want ErrUnauthorized after 1 attempt", err)
	}
}

// Each edit is scored by the mean log-probability of the tokens of its
// JSON object when the server gives them; not asked for, or not given, no
// score.
func TestProposeScoresEditsByTokenLogProbs(t *testing.T) {
	content := goodProposal
	first := strings.Index(content, `{"line": 7`)
	second := strings.Index(content, `{"line": "9"`)
	lp := func(pos int) float64 { // -0.5 in the first edit, -2 in the second, -1 elsewhere
		switch {
		case pos >= first && pos < second:
			return -0.5
		case pos >= second && pos < strings.Index(content, `{"line": null`):
			return -2
		}
		return -1
	}
	pos := 0
	tokens := openaitest.SplitTokens(content, func(_ int, tok string) float64 {
		defer func() { pos += len(tok) }()
		return lp(pos)
	})
	scripted := reply{Contents: []string{content}, LogProbs: [][]openaitest.TokenLogProb{tokens}}

	p, fs, _ := newTestProposer(t, Options{}, scripted)
	got, err := p.Propose(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if asked, _ := fs.Requests()[0].Raw["logprobs"].(bool); !asked {
		t.Error("the request did not ask for logprobs")
	}
	if len(got.Edits) != 3 {
		t.Fatalf("%d edits", len(got.Edits))
	}
	// Tokens of four bytes straddle the edits' edges, so the means are
	// near, not at, each edit's own value.
	for i, want := range []float64{-0.5, -2, -1} {
		s := got.Edits[i].Score
		if s == nil || math.Abs(*s-want) > 0.1 {
			t.Errorf("edit %d score %v, want about %v", i, s, want)
		}
	}

	p, fs, _ = newTestProposer(t, Options{NoLogProbs: true}, scripted)
	if got, err = p.Propose(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, asked := fs.Requests()[0].Raw["logprobs"]; asked || got.Edits[0].Score != nil {
		t.Errorf("NoLogProbs: asked %v, score %v", asked, got.Edits[0].Score)
	}
	p, _, _ = newTestProposer(t, Options{}, reply{Contents: []string{content}}) // a server without them
	if got, err = p.Propose(context.Background(), req); err != nil || got.Edits[0].Score != nil {
		t.Errorf("no logprobs given: score %v, err %v", got.Edits[0].Score, err)
	}
	// Tokens that do not spell the content: no score rather than a wrong one.
	bad := append([]openaitest.TokenLogProb(nil), tokens...)
	bad[3].Token = "@@@@"
	p, _, _ = newTestProposer(t, Options{}, reply{Contents: []string{content}, LogProbs: [][]openaitest.TokenLogProb{bad}})
	if got, err = p.Propose(context.Background(), req); err != nil || got.Edits[0].Score != nil {
		t.Errorf("mismatched tokens: score %v, err %v", got.Edits[0].Score, err)
	}
}

func TestUnreachableServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now
	p, err := New(Options{BaseURL: "http://" + addr + "/v1", Model: "m", MaxRetries: 1, BaseBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "not usable") {
		t.Fatalf("Check = %v", err)
	}
	if _, err := p.Propose(context.Background(), req); err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Propose = %v", err)
	}
}

func TestCheckAndValidation(t *testing.T) {
	p, _, _ := newTestProposer(t, Options{}, reply{})
	if err := p.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {BaseURL: "localhost:8000", Model: "m"}, {BaseURL: "http://x"}, {BaseURL: "http://x", Model: "m", N: -1}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestConcurrencyLimit(t *testing.T) {
	p, fs, _ := newTestProposer(t, Options{Concurrency: 2}, reply{Delay: 30 * time.Millisecond, Contents: []string{goodProposal}})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Propose(context.Background(), req); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if m := fs.MaxInFlight(); m > 2 || m < 1 {
		t.Fatalf("max in flight %d, limit 2", m)
	}
}

func TestRevise(t *testing.T) {
	rr := corpus.ReviseRequest{Task: req.Task, Program: req.Program, Diagnosis: "d",
		Edit: corpus.ProposedEdit{Text: "Line 2: change `total = 0` to `total = 1`"}, Key: "tree/0/1"}
	answer := "Old:\n```python\ntotal = 0\n```\nRevised:\n```python\ndef f(xs):\n    total = 1\n    return total\n```\n"
	p, fs, _ := newTestProposer(t, Options{}, reply{Contents: []string{answer}})
	got, err := p.Revise(context.Background(), rr)
	if err != nil {
		t.Fatal(err)
	}
	if got.Failed || got.Program != "def f(xs):\n    total = 1\n    return total\n" || got.OutputTokens != 42 {
		t.Fatalf("revision = %+v", got)
	}
	user := fs.Requests()[0].LastUser()
	if !strings.Contains(user, "change `total = 0` to `total = 1`") {
		t.Errorf("edit not in prompt:\n%s", user)
	}
	p, _, _ = newTestProposer(t, Options{}, reply{Contents: []string{"Sorry, I cannot help with that."}})
	got, err = p.Revise(context.Background(), rr)
	if err != nil || !got.Failed || got.Raw == "" {
		t.Fatalf("no-code revision = %+v, %v", got, err)
	}
}

func TestParseProgram(t *testing.T) {
	tests := []struct{ in, want string }{
		{"```python\nx = 1\n```", "x = 1\n"},
		{"```\nx = 1\n```", "x = 1\n"},
		{"```py\n  1 | def f():\n  2 |     return 1\n```", "def f():\n    return 1\n"},
		{"def f():\n    return 2", "def f():\n    return 2\n"},
		{"text only", ""},
	}
	for _, tt := range tests {
		got, ok := ExtractProgram(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ExtractProgram(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d := parseRetryAfter("3", now); d != 3*time.Second {
		t.Error(d)
	}
	if d := parseRetryAfter(now.Add(5*time.Second).Format(http.TimeFormat), now); d != 5*time.Second {
		t.Error(d)
	}
	if d := parseRetryAfter("soon", now); d != 0 {
		t.Error(d)
	}
}

func FuzzParseProposal(f *testing.F) {
	f.Add(goodProposal)
	f.Add(`{"diagnosis":"d","edits":[{"line":{"x":1},"change":"c"}]} trailing {`)
	f.Add("{{{\"}}}")
	f.Fuzz(func(t *testing.T, raw string) {
		diag, edits, spans, ok := parseProposalSpans(raw)
		if ok && (diag == "" || len(edits) == 0) {
			t.Fatalf("ok with diag %q edits %v", diag, edits)
		}
		if spans != nil && len(spans) != len(edits) {
			t.Fatalf("%d spans for %d edits", len(spans), len(edits))
		}
		for _, sp := range spans {
			if sp[0] < 0 || sp[1] > len(raw) || sp[0] >= sp[1] || raw[sp[0]] != '{' {
				t.Fatalf("span %v of %q", sp, raw)
			}
		}
		for _, e := range edits {
			if strings.TrimSpace(e.Text) == "" {
				t.Fatal("empty edit text")
			}
		}
	})
}

func FuzzParseProgram(f *testing.F) {
	f.Add("```python\nx = 1\n```")
	f.Add("```py\n 1 | a\n```")
	f.Fuzz(func(t *testing.T, raw string) {
		prog, ok := ExtractProgram(raw)
		if ok != (strings.TrimSpace(prog) != "") {
			t.Fatalf("ok=%v prog=%q", ok, prog)
		}
		if ok && !strings.HasSuffix(prog, "\n") {
			t.Fatalf("program without final newline: %q", prog)
		}
	})
}
