// Package openaitest is an in-process OpenAI-compatible server for tests:
// it speaks /v1/chat/completions and /v1/models like vLLM, llama.cpp server
// or Ollama, and answers from a script (a queue of replies, or replies
// routed by what the prompt asks for), so the openai proposer, the TSAPR
// search and the CLI can be tested without a model server.
//
// Imports: nothing of triage.
package openaitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// APIKey is the bearer token the server accepts; other keys get 401.
const APIKey = "sk-test"

// ModelName is the one model /v1/models lists.
const ModelName = "qwen3-test"

// Reply is one scripted answer.
type Reply struct {
	// Status, when not 0 or 200, is sent with an OpenAI-style error body.
	Status int
	// RetryAfter is sent as the Retry-After header when set.
	RetryAfter string
	// Delay holds the answer back (the request's cancellation ends it).
	Delay time.Duration
	// Contents are the choices' message contents, one per choice.
	Contents []string
	// RawBody is sent verbatim instead of a completion when set.
	RawBody string
	// NoUsage leaves the usage object out, as some servers do.
	NoUsage bool
	// PromptTokens and CompletionTokens are the usage reported (defaults
	// 100 and 42).
	PromptTokens, CompletionTokens int
	// LogProbs are the choices' token log-probabilities, one list per
	// choice (nil: none for that choice), sent as a real server does only
	// when the request asks for them ("logprobs": true).
	LogProbs [][]TokenLogProb
}

// TokenLogProb is one output token and its log-probability.
type TokenLogProb struct {
	Token   string  `json:"token"`
	LogProb float64 `json:"logprob"`
}

// SplitTokens cuts content into tokens of at most four bytes (whole UTF-8
// characters) and gives each the log-probability lp(i, token): scripted
// log-probabilities whose concatenated tokens are the content.
func SplitTokens(content string, lp func(i int, token string) float64) []TokenLogProb {
	var out []TokenLogProb
	for len(content) > 0 {
		n := 0
		for n < len(content) {
			_, size := utf8.DecodeRuneInString(content[n:])
			if n > 0 && n+size > 4 {
				break
			}
			n += size
		}
		tok := content[:n]
		out = append(out, TokenLogProb{Token: tok, LogProb: lp(len(out), tok)})
		content = content[n:]
	}
	return out
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one chat completion request as the server received it.
type Request struct {
	Model    string
	Messages []Message
	N        int // the request's n (0 when absent)
	// Raw is the whole decoded JSON body (e.g. to check "temperature").
	Raw map[string]any
}

// LastUser returns the content of the request's last user message.
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Server is a running fake server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give a client, ending in /v1.
	URL string

	mu       sync.Mutex
	respond  func(Request) Reply
	requests []Request
	inFlight atomic.Int32
	maxSeen  atomic.Int32
}

// New starts a server that answers from script in order; the last reply
// repeats. It is closed when the test ends.
func New(t testing.TB, script ...Reply) *Server {
	if len(script) == 0 {
		script = []Reply{{}}
	}
	q := &queue{replies: script}
	return NewFunc(t, func(Request) Reply { return q.next() })
}

// NewFunc starts a server that answers every chat request with respond
// (called with the server's lock held, so it may keep state without its
// own). It is closed when the test ends.
func NewFunc(t testing.TB, respond func(Request) Reply) *Server {
	s := NewHandler(respond)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// NewHandler returns a server that is not listening yet, for programs that
// serve it themselves (http.ListenAndServe); URL is left empty.
func NewHandler(respond func(Request) Reply) *Server {
	return &Server{respond: respond}
}

// Requests returns a copy of the chat requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MaxInFlight returns the most chat requests that were served at once.
func (s *Server) MaxInFlight() int { return int(s.maxSeen.Load()) }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","owned_by":"me"}]}`, ModelName)
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
		http.NotFound(w, r)
		return
	}
	if auth := r.Header.Get("Authorization"); auth != "Bearer "+APIKey {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`)
		return
	}
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	var raw map[string]any
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	req := decodeRequest(raw)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	rep := s.respond(req)
	s.mu.Unlock()
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		w.WriteHeader(rep.Status)
		fmt.Fprintf(w, `{"error":{"message":"status %d","type":"server_error","code":null}}`, rep.Status)
		return
	}
	if rep.RawBody != "" {
		fmt.Fprint(w, rep.RawBody)
		return
	}
	choices := []map[string]any{}
	askedLogProbs, _ := raw["logprobs"].(bool)
	for i, c := range rep.Contents {
		choice := map[string]any{"index": i, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": c}}
		if askedLogProbs && i < len(rep.LogProbs) && rep.LogProbs[i] != nil {
			choice["logprobs"] = map[string]any{"content": rep.LogProbs[i]}
		}
		choices = append(choices, choice)
	}
	resp := map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model, "choices": choices}
	if !rep.NoUsage {
		pt, ct := rep.PromptTokens, rep.CompletionTokens
		if pt == 0 {
			pt = 100
		}
		if ct == 0 {
			ct = 42
		}
		resp["usage"] = map[string]any{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
	}
	_ = json.NewEncoder(w).Encode(resp)
}

func decodeRequest(raw map[string]any) Request {
	req := Request{Raw: raw}
	req.Model, _ = raw["model"].(string)
	if n, ok := raw["n"].(float64); ok {
		req.N = int(n)
	}
	msgs, _ := raw["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		content, _ := mm["content"].(string)
		req.Messages = append(req.Messages, Message{Role: role, Content: content})
	}
	return req
}

// queue hands out replies in order; the last one repeats.
type queue struct{ replies []Reply }

func (q *queue) next() Reply {
	rep := q.replies[0]
	if len(q.replies) > 1 {
		q.replies = q.replies[1:]
	}
	return rep
}

// Route answers the requests whose last user message contains Marker from
// its own script, in order (the last reply repeats).
type Route struct {
	Marker  string
	Replies []Reply
}

// Routed returns a responder for NewFunc that sends each request to the
// first route whose marker its last user message contains. A request that
// no route takes gets a 400, so a test notices a prompt it did not expect.
func Routed(routes ...Route) func(Request) Reply {
	qs := make([]*queue, len(routes))
	for i, r := range routes {
		if len(r.Replies) == 0 {
			r.Replies = []Reply{{}}
		}
		qs[i] = &queue{replies: r.Replies}
	}
	return func(req Request) Reply {
		user := req.LastUser()
		for i, r := range routes {
			if strings.Contains(user, r.Marker) {
				return qs[i].next()
			}
		}
		return Reply{Status: http.StatusBadRequest}
	}
}

// Text is a one-choice reply with the given content.
func Text(content string) Reply { return Reply{Contents: []string{content}} }
