// Package openai is the LLM proposer: any OpenAI-compatible chat endpoint
// (vLLM, SGLang, Ollama, llama.cpp server, OpenAI) through
// github.com/sashabaranov/go-openai. Prompts follow CodeTriage: one call
// diagnoses a failing program and proposes k structured edits; one call per
// expansion writes the revised program for the chosen edit.
//
// go-openai retries nothing and hides response headers, and drops a
// temperature of 0 from the request (omitempty); this package adds bounded
// retries with exponential backoff and full jitter on 429, 5xx, timeouts and
// connection errors (honouring Retry-After), a concurrency limit, and sends
// temperature 0 explicitly.
package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"triage/corpus"
)

// Options configure a Proposer. Zero values take the documented defaults.
type Options struct {
	BaseURL     string  // e.g. http://127.0.0.1:8000/v1 (required)
	Model       string  // model name the server knows (required)
	APIKey      string  // bearer token; many local servers accept any
	N           int     // completions per diagnose call; edits are pooled (default 1)
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
}

// Proposer implements corpus.Proposer over an OpenAI-compatible server. It is
// safe for concurrent use.
type Proposer struct {
	opts   Options
	client *goopenai.Client
	sem    chan struct{}
	// sleep waits between retries; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

var _ corpus.Proposer = (*Proposer)(nil)

// New validates opts and returns a Proposer. It makes no request; call Check
// to fail fast on an unreachable server.
func New(opts Options) (*Proposer, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("openai proposer: base URL is required")
	}
	if !strings.HasPrefix(opts.BaseURL, "http://") && !strings.HasPrefix(opts.BaseURL, "https://") {
		return nil, fmt.Errorf("openai proposer: base URL %q must start with http:// or https://", opts.BaseURL)
	}
	if opts.Model == "" {
		return nil, errors.New("openai proposer: model is required")
	}
	if opts.N < 0 || opts.MaxTokens < 0 || opts.Concurrency < 0 || opts.MaxRetries < 0 || opts.Temperature < 0 {
		return nil, errors.New("openai proposer: n, max tokens, concurrency, retries and temperature must not be negative")
	}
	setDefault(&opts.N, 1)
	setDefault(&opts.MaxTokens, 2048)
	setDefault(&opts.Concurrency, 8)
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 5
	}
	setDefault(&opts.BaseBackoff, 500*time.Millisecond)
	setDefault(&opts.MaxBackoff, 30*time.Second)
	setDefault(&opts.RequestTimeout, 120*time.Second)
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	cfg := goopenai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = &doer{client: hc, zeroTemperature: opts.Temperature == 0}
	return &Proposer{
		opts:   opts,
		client: goopenai.NewClientWithConfig(cfg),
		sem:    make(chan struct{}, opts.Concurrency),
		sleep:  sleepCtx,
	}, nil
}

func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// Name is the proposer name recorded in corpora.
func (p *Proposer) Name() string { return "openai" }

// Model is the model name recorded in corpora.
func (p *Proposer) Model() string { return p.opts.Model }

// Check asks the server for its model list, so a wrong or unreachable base
// URL fails before any work starts. Servers without /models (some proxies)
// answer 404, which Check accepts.
func (p *Proposer) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	_, err := p.client.ListModels(ctx)
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode == http.StatusNotFound,
		errors.As(err, &reqErr) && reqErr.HTTPStatusCode == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("openai proposer: server at %s not usable: %w", p.opts.BaseURL, err)
}

// Propose asks for a diagnosis and req.K edits in one call (N completions
// pooled). Unparseable output is a Failed proposal with the raw text kept.
func (p *Proposer) Propose(ctx context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
	resp, err := p.complete(ctx, proposeMessages(req), p.opts.N)
	if err != nil {
		return corpus.Proposal{}, fmt.Errorf("propose %s: %w", req.Key, err)
	}
	out := corpus.Proposal{OutputTokens: resp.Usage.CompletionTokens}
	var raws []string
	seen := map[string]bool{}
	for _, ch := range resp.Choices {
		raws = append(raws, ch.Message.Content)
		diag, edits, ok := parseProposal(ch.Message.Content)
		if !ok {
			continue
		}
		if out.Diagnosis == "" {
			out.Diagnosis = diag
		}
		for _, e := range edits {
			if len(out.Edits) < req.K && !seen[e.Text] {
				seen[e.Text] = true
				out.Edits = append(out.Edits, e)
			}
		}
	}
	if out.OutputTokens == 0 {
		out.OutputTokens = estimateTokens(strings.Join(raws, ""))
		out.TokensEstimated = true
	}
	if out.Diagnosis == "" || len(out.Edits) == 0 {
		out.Failed = true
		out.Raw = strings.Join(raws, "\n---\n")
		slog.Debug("unparseable proposal", "key", req.Key, "raw_bytes", len(out.Raw))
	}
	return out, nil
}

// Revise asks for the full revised program for one edit. Output without a
// program is a Failed revision with the raw text kept.
func (p *Proposer) Revise(ctx context.Context, req corpus.ReviseRequest) (corpus.Revision, error) {
	resp, err := p.complete(ctx, reviseMessages(req), 1)
	if err != nil {
		return corpus.Revision{}, fmt.Errorf("revise %s: %w", req.Key, err)
	}
	var raw string
	if len(resp.Choices) > 0 {
		raw = resp.Choices[0].Message.Content
	}
	out := corpus.Revision{OutputTokens: resp.Usage.CompletionTokens}
	if out.OutputTokens == 0 {
		out.OutputTokens, out.TokensEstimated = estimateTokens(raw), true
	}
	prog, ok := parseProgram(raw)
	if !ok {
		out.Failed, out.Raw = true, raw
		return out, nil
	}
	out.Program = prog
	return out, nil
}

// estimateTokens approximates a Qwen3 token count from bytes for servers that
// report no usage; callers mark such counts as estimated.
func estimateTokens(s string) int { return (len(s)*10 + 35) / 36 }

// complete sends one chat request with the concurrency limit and retries.
func (p *Proposer) complete(ctx context.Context, msgs []goopenai.ChatCompletionMessage, n int) (goopenai.ChatCompletionResponse, error) {
	req := goopenai.ChatCompletionRequest{
		Model:       p.opts.Model,
		Messages:    msgs,
		Temperature: p.opts.Temperature,
		MaxTokens:   p.opts.MaxTokens,
		N:           n,
	}
	var lastErr error
	for attempt := 0; ; attempt++ {
		resp, retryAfter, err := p.once(ctx, req)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, ctx.Err()
		}
		lastErr = err
		if !retryable(err) || attempt >= p.opts.MaxRetries {
			break
		}
		wait := backoff(attempt, p.opts.BaseBackoff, p.opts.MaxBackoff)
		if retryAfter > wait {
			wait = min(retryAfter, p.opts.MaxBackoff)
		}
		slog.Debug("retrying chat completion", "attempt", attempt+1, "wait", wait, "err", err)
		if err := p.sleep(ctx, wait); err != nil {
			return goopenai.ChatCompletionResponse{}, err
		}
	}
	return goopenai.ChatCompletionResponse{}, fmt.Errorf("chat completion at %s failed after %d attempt(s): %w",
		p.opts.BaseURL, p.opts.MaxRetries+1, lastErr)
}

// once makes one attempt under the concurrency limit and the per-request
// timeout, returning the server's Retry-After, if any.
func (p *Proposer) once(ctx context.Context, req goopenai.ChatCompletionRequest) (goopenai.ChatCompletionResponse, time.Duration, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return goopenai.ChatCompletionResponse{}, 0, ctx.Err()
	}
	defer func() { <-p.sem }()
	actx, cancel := context.WithTimeout(ctx, p.opts.RequestTimeout)
	defer cancel()
	hdr := &responseHeader{}
	resp, err := p.client.CreateChatCompletion(context.WithValue(actx, headerKey{}, hdr), req)
	if err == nil && len(resp.Choices) == 0 {
		err = errEmptyChoices
	}
	return resp, hdr.retryAfter, err
}

var errEmptyChoices = errors.New("server returned no choices")

// retryable reports whether an attempt's error may succeed on retry: rate
// limits, server errors, timeouts and transport failures. Client errors (400,
// 401, 404…) are not retried.
func retryable(err error) bool {
	var apiErr *goopenai.APIError
	if errors.As(err, &apiErr) {
		return retryableStatus(apiErr.HTTPStatusCode)
	}
	var reqErr *goopenai.RequestError
	if errors.As(err, &reqErr) {
		return retryableStatus(reqErr.HTTPStatusCode)
	}
	// Timeouts, refused connections, truncated or undecodable bodies, and
	// empty choices: the server may recover.
	return true
}

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500 || code == 0
}

// backoff is exponential with full jitter: uniform in [0, min(max, base·2^attempt)].
func backoff(attempt int, base, maxWait time.Duration) time.Duration {
	ceil := base << min(attempt, 30)
	if ceil <= 0 || ceil > maxWait {
		ceil = maxWait
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
