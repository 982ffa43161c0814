// Package setup builds a proposer by name from one set of options, the
// ones `triage corpus build` and `triage search` share, so that both
// commands construct the same proposer from the same settings (both count
// tokens with the Qwen3 tokenizer, for instance).
//
// Imports: corpus, model/tokenizer and the proposers (search/proposer/...).
package setup

import (
	"context"
	"fmt"

	"triage/corpus"
	"triage/model/tokenizer"
	"triage/search/proposer/mutate"
	"triage/search/proposer/openai"
)

// Names are the proposers New builds.
var Names = []string{"mutate", "openai"}

// InvalidError marks options that cannot build a proposer: bad input, as
// opposed to a server that does not answer. Its message is the cause's.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// Options are the settings of a proposer. Seed applies to mutate; the
// others to openai.
type Options struct {
	Name string // mutate or openai
	Seed uint64
	// BaseURL, Model and APIKey address the OpenAI-compatible server.
	BaseURL, Model, APIKey string
	N                      int     // completions per diagnose call
	Temperature            float32 // sampling temperature
	MaxTokens              int     // max output tokens per call
	Concurrency            int     // requests in flight
	NoLogProbs             bool    // do not ask for token log-probabilities
}

// Proposer is a built proposer with what the caller records of it.
type Proposer struct {
	// Proposer is the proposer itself, not wrapped: callers look for
	// optional interfaces on it (corpus.CoverageUser).
	Proposer corpus.Proposer
	// Model names the model, for the record: "mutate", or the server's
	// model name.
	Model string
	// Client is the LLM client of an openai proposer (nil for mutate),
	// for methods that call the model themselves (TSAPR).
	Client *openai.Client
}

// New builds the proposer o names. Both count output tokens with the
// Qwen3 tokenizer (mutate always; openai when the server reports no
// usage), so token metrics mean the same whichever proposer made them. An
// openai proposer is checked against its server before New returns.
// An *InvalidError is bad options.
func New(ctx context.Context, o Options) (Proposer, error) {
	if o.Name != "mutate" && o.Name != "openai" {
		return Proposer{}, &InvalidError{corpus.FieldErrorf("{Name} %q: want mutate or openai", o.Name)}
	}
	tok, err := tokenizer.Qwen3()
	if err != nil {
		return Proposer{}, fmt.Errorf("load the Qwen3 tokenizer: %w", err)
	}
	if o.Name == "mutate" {
		return Proposer{Proposer: mutate.New(mutate.Options{Seed: o.Seed, Tokens: tok}), Model: "mutate"}, nil
	}
	p, err := openai.New(openai.Options{BaseURL: o.BaseURL, Model: o.Model, APIKey: o.APIKey,
		N: o.N, Temperature: o.Temperature, MaxTokens: o.MaxTokens, Concurrency: o.Concurrency, Tokens: tok,
		NoLogProbs: o.NoLogProbs})
	if err != nil {
		return Proposer{}, &InvalidError{err}
	}
	if err := p.Check(ctx); err != nil {
		return Proposer{}, err
	}
	return Proposer{Proposer: p, Model: o.Model, Client: p.Client()}, nil
}
