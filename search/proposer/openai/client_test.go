package openai

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"triage/search/proposer/openai/openaitest"
)

// wordCounter counts whitespace-separated words: a stand-in tokenizer.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) int { return len(strings.Fields(s)) }

func newTestClient(t *testing.T, opts Options, srv *openaitest.Server) *Client {
	t.Helper()
	opts.BaseURL, opts.Model, opts.APIKey = srv.URL, openaitest.ModelName, openaitest.APIKey
	c, err := NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
	return c
}

func TestClientUsageAndMeter(t *testing.T) {
	srv := openaitest.New(t,
		openaitest.Reply{Contents: []string{"a b c", "d e"}, PromptTokens: 7, CompletionTokens: 9},
		openaitest.Reply{Contents: []string{"one two three"}, NoUsage: true})
	c := newTestClient(t, Options{Tokens: wordCounter{}}, srv)
	var m Meter
	ctx := WithMeter(context.Background(), &m)
	msgs := []Message{{Role: RoleSystem, Content: "be brief"}, {Role: RoleUser, Content: "fix this program now"}}
	rep, err := c.Complete(ctx, Request{Messages: msgs, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Contents) != 2 || rep.Usage != (Usage{Calls: 1, InputTokens: 7, OutputTokens: 9}) {
		t.Fatalf("reply %+v", rep)
	}
	// No usage report: the counter counts the messages and the reply.
	rep, err = c.Complete(ctx, Request{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Usage != (Usage{Calls: 1, InputTokens: 2 + 4, OutputTokens: 3}) {
		t.Fatalf("counted usage %+v", rep.Usage)
	}
	if got := m.Usage(); got != (Usage{Calls: 2, InputTokens: 13, OutputTokens: 12}) {
		t.Fatalf("meter %+v", got)
	}
	// Without a counter the byte estimate is used and labelled.
	c = newTestClient(t, Options{}, srv)
	rep, err = c.Complete(context.Background(), Request{Messages: msgs})
	if err != nil || !rep.Usage.Estimated || rep.Usage.OutputTokens == 0 {
		t.Fatalf("estimated usage %+v, %v", rep.Usage, err)
	}
}

func TestClientPerRequestSettings(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("x"))
	c := newTestClient(t, Options{Temperature: 0.7, MaxTokens: 100}, srv)
	zero, hot := float32(0), float32(0.9)
	for _, req := range []Request{
		{Messages: []Message{{Role: RoleUser, Content: "a"}}},
		{Messages: []Message{{Role: RoleUser, Content: "b"}}, Temperature: &zero, Model: "judge", MaxTokens: 5},
		{Messages: []Message{{Role: RoleUser, Content: "c"}}, Temperature: &hot, N: 3},
	} {
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	r := srv.Requests()
	if r[0].Raw["temperature"] != 0.7 || r[0].Model != openaitest.ModelName || r[0].Raw["max_tokens"] != float64(100) {
		t.Errorf("defaults: %v", r[0].Raw)
	}
	if r[1].Raw["temperature"] != float64(0) || r[1].Model != "judge" || r[1].Raw["max_tokens"] != float64(5) {
		t.Errorf("temperature 0 and model override: %v", r[1].Raw)
	}
	if r[2].Raw["temperature"] != 0.9 || r[2].N != 3 {
		t.Errorf("override: %v", r[2].Raw)
	}
}

func TestMeterIsSafeForConcurrentUse(t *testing.T) {
	srv := openaitest.New(t, openaitest.Text("x"))
	c := newTestClient(t, Options{Concurrency: 4}, srv)
	var m Meter
	ctx := WithMeter(context.Background(), &m)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Complete(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if u := m.Usage(); u.Calls != 16 || u.OutputTokens != 16*42 || u.InputTokens != 16*100 {
		t.Fatalf("meter %+v", u)
	}
}
