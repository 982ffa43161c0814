package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"triage/search/proposer"
)

// Message is one chat message.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// Chat roles.
const (
	RoleSystem    = goopenai.ChatMessageRoleSystem
	RoleUser      = goopenai.ChatMessageRoleUser
	RoleAssistant = goopenai.ChatMessageRoleAssistant
)

// Request is one chat completion request. Zero fields take the client's
// settings.
type Request struct {
	Model    string // "" = Options.Model
	Messages []Message
	N        int // completions asked for (default 1); servers may return fewer
	// Temperature overrides Options.Temperature when set.
	Temperature *float32
	MaxTokens   int // 0 = Options.MaxTokens
	// LogProbs asks the server for each output token's log-probability
	// (the request's "logprobs"); servers that do not give them answer
	// without.
	LogProbs bool
}

// TokenLogProb is one output token and its log-probability.
type TokenLogProb struct {
	Token   string
	LogProb float64
}

// Usage is the token usage of one or more calls. Counts come from the
// server's usage report; when a server reports none they are counted with
// the client's TokenCounter over the message and reply texts (the chat
// template's few tokens are then not counted), and Estimated is set when
// that counter is only a byte-based estimate.
type Usage struct {
	Calls        int  `json:"calls"`
	InputTokens  int  `json:"input_tokens"`
	OutputTokens int  `json:"output_tokens"`
	Estimated    bool `json:"tokens_estimated,omitempty"`
}

// Add adds v to u.
func (u *Usage) Add(v Usage) {
	u.Calls += v.Calls
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.Estimated = u.Estimated || v.Estimated
}

// Reply is the answer to one Request: the choices' contents and the usage.
type Reply struct {
	Contents []string
	// LogProbs[i] are Contents[i]'s tokens with their log-probabilities,
	// when the request asked for them and the server gave them (else nil).
	LogProbs [][]TokenLogProb
	Usage    Usage
}

// Meter sums the usage of every call made with a context that carries it
// (WithMeter), whatever made the call: a proposer behind the
// corpus.Proposer interface, or a search method. It is safe for concurrent
// use.
type Meter struct {
	mu sync.Mutex
	u  Usage
}

type meterKey struct{}

// WithMeter returns a context whose calls add their usage to m.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// Usage returns the usage summed so far.
func (m *Meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.u
}

func (m *Meter) add(u Usage) {
	m.mu.Lock()
	m.u.Add(u)
	m.mu.Unlock()
}

// Client sends chat completions to an OpenAI-compatible server with a
// concurrency limit, bounded retries with exponential backoff and full
// jitter (honouring Retry-After), an explicit temperature 0, and usage
// accounting. It is safe for concurrent use.
type Client struct {
	opts    Options
	api     *goopenai.Client
	sem     chan struct{}
	counter proposer.TokenCounter
	// estimated reports whether counter is a byte-based estimate.
	estimated bool
	// sleep waits between retries; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// NewClient validates opts and returns a Client (Options.N is the
// proposer's and is ignored here). It makes no request; call Check to fail
// fast on an unreachable server.
func NewClient(opts Options) (*Client, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("openai: base URL is required")
	}
	if !strings.HasPrefix(opts.BaseURL, "http://") && !strings.HasPrefix(opts.BaseURL, "https://") {
		return nil, fmt.Errorf("openai: base URL %q must start with http:// or https://", opts.BaseURL)
	}
	if opts.Model == "" {
		return nil, errors.New("openai: model is required")
	}
	if opts.N < 0 || opts.MaxTokens < 0 || opts.Concurrency < 0 || opts.MaxRetries < 0 || opts.Temperature < 0 {
		return nil, errors.New("openai: n, max tokens, concurrency, retries and temperature must not be negative")
	}
	setDefault(&opts.N, 1)
	setDefault(&opts.MaxTokens, 2048)
	setDefault(&opts.Concurrency, 8)
	setDefault(&opts.MaxRetries, 5)
	setDefault(&opts.BaseBackoff, 500*time.Millisecond)
	setDefault(&opts.MaxBackoff, 30*time.Second)
	setDefault(&opts.RequestTimeout, 120*time.Second)
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	cfg := goopenai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = &doer{client: hc}
	counter, estimated := proposer.Counter(opts.Tokens)
	return &Client{
		opts:      opts,
		api:       goopenai.NewClientWithConfig(cfg),
		sem:       make(chan struct{}, opts.Concurrency),
		counter:   counter,
		estimated: estimated,
		sleep:     sleepCtx,
	}, nil
}

func setDefault[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// Model is the client's default model name.
func (c *Client) Model() string { return c.opts.Model }

// BaseURL is the server's base URL.
func (c *Client) BaseURL() string { return c.opts.BaseURL }

// Check asks the server for its model list, so a wrong or unreachable base
// URL fails before any work starts. Servers without /models (some proxies)
// answer 404, which Check accepts.
func (c *Client) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	_, err := c.api.ListModels(ctx)
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode == http.StatusNotFound,
		errors.As(err, &reqErr) && reqErr.HTTPStatusCode == http.StatusNotFound:
		return nil
	}
	if unauthorized(err) {
		err = fmt.Errorf("%w: %w", ErrUnauthorized, err)
	}
	return fmt.Errorf("openai: server at %s not usable: %w", c.opts.BaseURL, err)
}

// Complete sends req with the concurrency limit and retries, and returns
// the choices with their usage, which is also added to the context's Meter.
// A reply with no choices is retried like a server fault. Errors are for
// cancellation, client errors (400, 401, 404…) and faults that outlast the
// retries.
func (c *Client) Complete(ctx context.Context, req Request) (Reply, error) {
	creq := goopenai.ChatCompletionRequest{
		Model:       cmpOr(req.Model, c.opts.Model),
		Temperature: c.opts.Temperature,
		MaxTokens:   cmpOr(req.MaxTokens, c.opts.MaxTokens),
		N:           max(req.N, 1),
		LogProbs:    req.LogProbs,
	}
	if req.Temperature != nil {
		creq.Temperature = *req.Temperature
	}
	for _, m := range req.Messages {
		creq.Messages = append(creq.Messages, goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	resp, err := c.complete(ctx, creq)
	if err != nil {
		return Reply{}, err
	}
	rep := Reply{Usage: Usage{Calls: 1, InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}}
	for _, ch := range resp.Choices {
		rep.Contents = append(rep.Contents, ch.Message.Content)
		var lps []TokenLogProb
		if ch.LogProbs != nil {
			lps = make([]TokenLogProb, len(ch.LogProbs.Content))
			for i, lp := range ch.LogProbs.Content {
				lps[i] = TokenLogProb{Token: lp.Token, LogProb: lp.LogProb}
			}
		}
		rep.LogProbs = append(rep.LogProbs, lps)
	}
	if rep.Usage.OutputTokens == 0 {
		for _, s := range rep.Contents {
			rep.Usage.OutputTokens += c.counter.CountTokens(s)
		}
		rep.Usage.Estimated = c.estimated
	}
	if rep.Usage.InputTokens == 0 {
		for _, m := range req.Messages {
			rep.Usage.InputTokens += c.counter.CountTokens(m.Content)
		}
		rep.Usage.Estimated = rep.Usage.Estimated || c.estimated
	}
	if m, ok := ctx.Value(meterKey{}).(*Meter); ok && m != nil {
		m.add(rep.Usage)
	}
	return rep, nil
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// complete sends one chat request with the concurrency limit and retries.
func (c *Client) complete(ctx context.Context, req goopenai.ChatCompletionRequest) (goopenai.ChatCompletionResponse, error) {
	var lastErr error
	attempts := 0
	for attempt := 0; ; attempt++ {
		resp, retryAfter, err := c.once(ctx, req)
		attempts++
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, ctx.Err()
		}
		lastErr = err
		if !retryable(err) || attempt >= c.opts.MaxRetries {
			break
		}
		wait := backoff(attempt, c.opts.BaseBackoff, c.opts.MaxBackoff)
		if retryAfter > wait {
			wait = min(retryAfter, c.opts.MaxBackoff)
		}
		slog.Debug("retrying chat completion", "attempt", attempt+1, "wait", wait, "err", err)
		if err := c.sleep(ctx, wait); err != nil {
			return goopenai.ChatCompletionResponse{}, err
		}
	}
	if unauthorized(lastErr) {
		lastErr = fmt.Errorf("%w: %w", ErrUnauthorized, lastErr)
	}
	return goopenai.ChatCompletionResponse{}, fmt.Errorf("chat completion at %s failed after %d attempt(s): %w",
		c.opts.BaseURL, attempts, lastErr)
}

// ErrUnauthorized marks a server's refusal of the API key (HTTP 401 or
// 403): not retried, and the caller's hint is where the key comes from.
var ErrUnauthorized = errors.New("the server refused the API key")

// unauthorized reports whether err is an HTTP 401 or 403 answer.
func unauthorized(err error) bool {
	code := 0
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		code = apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		code = reqErr.HTTPStatusCode
	}
	return code == http.StatusUnauthorized || code == http.StatusForbidden
}

// once makes one attempt under the concurrency limit and the per-request
// timeout, returning the server's Retry-After, if any.
func (c *Client) once(ctx context.Context, req goopenai.ChatCompletionRequest) (goopenai.ChatCompletionResponse, time.Duration, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return goopenai.ChatCompletionResponse{}, 0, ctx.Err()
	}
	defer func() { <-c.sem }()
	actx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	st := &attemptState{zeroTemperature: req.Temperature == 0}
	resp, err := c.api.CreateChatCompletion(context.WithValue(actx, attemptKey{}, st), req)
	if err == nil && len(resp.Choices) == 0 {
		err = errEmptyChoices
	}
	return resp, st.retryAfter, err
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
