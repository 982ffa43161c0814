// Package openai is the LLM proposer: any OpenAI-compatible chat endpoint
// (vLLM, SGLang, Ollama, llama.cpp server, OpenAI) through
// github.com/sashabaranov/go-openai. Prompts follow CodeTriage: one call
// diagnoses a failing program and proposes k structured edits; one call per
// expansion writes the revised program for the chosen edit.
//
// go-openai retries nothing and hides response headers, and drops a
// temperature of 0 from the request (omitempty); this package's Client adds
// bounded retries with exponential backoff and full jitter on 429, 5xx,
// timeouts and connection errors (honouring Retry-After), a concurrency
// limit, an explicit temperature 0, and usage accounting (server usage, or a
// tokenizer count when the server reports none; Meter sums it per context).
// Other packages (the TSAPR search) reuse the Client for their own prompts.
//
// Imports: corpus and search/proposer (model/tokenizer is passed in as a
// token counter, not imported).
package openai

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"triage/corpus"
	"triage/search/proposer"
)

// Options configure a Client and a Proposer. Zero values take the
// documented defaults.
type Options struct {
	BaseURL     string  // e.g. http://127.0.0.1:8000/v1 (required)
	Model       string  // model name the server knows (required)
	APIKey      string  // bearer token; many local servers accept any
	N           int     // proposer: completions per diagnose call; edits are pooled (default 1)
	Temperature float32 // sampling temperature, 0 = greedy (sent explicitly)
	MaxTokens   int     // max output tokens per call (default 2048)
	Concurrency int     // max requests in flight (default 8)
	MaxRetries  int     // retries after the first try (default 5)
	// BaseBackoff and MaxBackoff bound the exponential backoff (defaults 500ms, 30s).
	BaseBackoff, MaxBackoff time.Duration
	// RequestTimeout bounds one HTTP attempt (default 120s).
	RequestTimeout time.Duration
	// HTTPClient overrides the transport (tests); nil = a fresh http.Client.
	HTTPClient *http.Client
	// Tokens counts tokens when a server reports no usage (the Qwen3
	// tokenizer); nil = a byte-based estimate, labelled as such.
	Tokens proposer.TokenCounter
	// NoLogProbs stops the proposer asking for token log-probabilities
	// (for a server that refuses the request's "logprobs"). With them, each
	// edit is scored by its tokens' mean log-probability.
	NoLogProbs bool
}

// Proposer implements corpus.Proposer over an OpenAI-compatible server. It is
// safe for concurrent use.
type Proposer struct {
	n          int
	noLogProbs bool
	client     *Client
}

var _ corpus.Proposer = (*Proposer)(nil)

// New validates opts and returns a Proposer. It makes no request; call Check
// to fail fast on an unreachable server.
func New(opts Options) (*Proposer, error) {
	c, err := NewClient(opts)
	if err != nil {
		return nil, err
	}
	return &Proposer{n: c.opts.N, noLogProbs: opts.NoLogProbs, client: c}, nil
}

// Name is the proposer name recorded in corpora.
func (p *Proposer) Name() string { return "openai" }

// Model is the model name recorded in corpora.
func (p *Proposer) Model() string { return p.client.Model() }

// Client is the chat client the proposer calls, for reuse by other callers
// that should share its concurrency limit.
func (p *Proposer) Client() *Client { return p.client }

// Check asks the server for its model list, so a wrong or unreachable base
// URL fails before any work starts.
func (p *Proposer) Check(ctx context.Context) error {
	if err := p.client.Check(ctx); err != nil {
		return fmt.Errorf("openai proposer: %w", err)
	}
	return nil
}

// Propose asks for a diagnosis and req.K edits in one call (N completions
// pooled). Unparseable output is a Failed proposal with the raw text kept.
func (p *Proposer) Propose(ctx context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
	rep, err := p.client.Complete(ctx, Request{Messages: proposeMessages(req), N: p.n, LogProbs: !p.noLogProbs})
	if err != nil {
		return corpus.Proposal{}, fmt.Errorf("propose %s: %w", req.Key, err)
	}
	out := corpus.Proposal{OutputTokens: rep.Usage.OutputTokens, TokensEstimated: rep.Usage.Estimated}
	seen := map[string]bool{}
	for ci, content := range rep.Contents {
		diag, edits, spans, ok := parseProposalSpans(content)
		if !ok {
			continue
		}
		if out.Diagnosis == "" {
			out.Diagnosis = diag
		}
		for i, e := range edits {
			// The edit's score: the mean log-probability of the tokens of
			// its JSON object, where the server gave them.
			if ci < len(rep.LogProbs) && rep.LogProbs[ci] != nil && spans != nil {
				if m, ok := meanLogProb(content, rep.LogProbs[ci], spans[i]); ok {
					e.Score = &m
				}
			}
			if len(out.Edits) < req.K && !seen[e.Text] {
				seen[e.Text] = true
				out.Edits = append(out.Edits, e)
			}
		}
	}
	if out.Diagnosis == "" || len(out.Edits) == 0 {
		out.Failed = true
		out.Raw = strings.Join(rep.Contents, "\n---\n")
		slog.Debug("unparseable proposal", "key", req.Key, "raw_bytes", len(out.Raw))
	}
	return out, nil
}

// Revise asks for the full revised program for one edit. Output without a
// program is a Failed revision with the raw text kept.
func (p *Proposer) Revise(ctx context.Context, req corpus.ReviseRequest) (corpus.Revision, error) {
	rep, err := p.client.Complete(ctx, Request{Messages: reviseMessages(req)})
	if err != nil {
		return corpus.Revision{}, fmt.Errorf("revise %s: %w", req.Key, err)
	}
	var raw string
	if len(rep.Contents) > 0 {
		raw = rep.Contents[0]
	}
	out := corpus.Revision{OutputTokens: rep.Usage.OutputTokens, TokensEstimated: rep.Usage.Estimated}
	prog, ok := ExtractProgram(raw)
	if !ok {
		out.Failed, out.Raw = true, raw
		return out, nil
	}
	out.Program = prog
	return out, nil
}
