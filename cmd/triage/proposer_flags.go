package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"triage/search/proposer/setup"
)

// proposerFlags are the proposer settings `corpus build` and `search`
// share; both build their proposer from them with newProposer.
type proposerFlags struct {
	proposer, baseURL, model, apiKeyEnv string
	temperature                         float32
	maxTokens, concurrency, n           int
}

// addProposerFlags adds the proposer flags to fl; the commands word the
// help of --temperature and --n each for itself.
func addProposerFlags(fl *pflag.FlagSet, p *proposerFlags, temperatureUsage, nUsage string) {
	fl.StringVar(&p.proposer, "proposer", "mutate", "proposer: mutate (offline) or openai")
	fl.StringVar(&p.baseURL, "base-url", "", "openai: server base URL, e.g. http://127.0.0.1:8000/v1")
	fl.StringVar(&p.model, "model", "", "openai: model name")
	fl.StringVar(&p.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "openai: environment variable holding the API key")
	fl.Float32Var(&p.temperature, "temperature", 0.7, temperatureUsage)
	fl.IntVar(&p.maxTokens, "max-tokens", 2048, "openai: max output tokens per call")
	fl.IntVar(&p.concurrency, "concurrency", 8, "openai: requests in flight")
	fl.IntVar(&p.n, "n", 1, nUsage)
}

// newProposer builds the proposer of p (setup.New); bad options are bad
// input, a server that fails its check is a failure of the command named.
func newProposer(ctx context.Context, command string, p proposerFlags, seed uint64) (setup.Proposer, error) {
	built, err := setup.New(ctx, setup.Options{Name: p.proposer, Seed: seed, BaseURL: p.baseURL, Model: p.model,
		APIKey: os.Getenv(p.apiKeyEnv), N: p.n, Temperature: p.temperature, MaxTokens: p.maxTokens, Concurrency: p.concurrency})
	var inv *setup.InvalidError
	switch {
	case errors.As(err, &inv):
		return built, badInput("%v", inv.Err)
	case err != nil:
		return built, fmt.Errorf("%s: %w", command, err)
	}
	return built, nil
}
