// Package proposer holds what every proposer shares: the TokenCounter that
// measures output tokens, the labelled byte-based estimate used when no
// tokenizer is wired, and Func, an adapter that turns two functions into a
// corpus.Proposer (fakes in tests, one-line proposers).
//
// The concrete proposers live in subpackages: mutate (offline program
// mutations, no LLM) and openai (any OpenAI-compatible endpoint).
//
// Imports: corpus and model/tokenizer only; the proposers below it import
// this package too.
package proposer

import (
	"context"
	"fmt"
	"math"

	"triage/corpus"
)

// TokenCounter counts the tokens a model's tokenizer makes of s. The Qwen3
// tokenizer (triage/model/tokenizer) satisfies it.
type TokenCounter interface {
	CountTokens(s string) int
}

// BytesPerToken is the average number of UTF-8 bytes per Qwen3 token assumed
// by EstimateTokens. Byte-level BPE tokenizers of the Qwen family average
// about 3.5–4 bytes per token on Python source and English prose.
const BytesPerToken = 3.6

// EstimateTokens estimates the number of tokens of s as len(s)/BytesPerToken,
// rounded up. It is an estimate: data derived from it must be labelled as such
// (corpus.Proposal.TokensEstimated, corpus.Revision.TokensEstimated).
func EstimateTokens(s string) int {
	if s == "" {
		return 0
	}
	return int(math.Ceil(float64(len(s)) / BytesPerToken))
}

// Estimator is the TokenCounter that calls EstimateTokens. Proposers that are
// given it (or no counter) mark their token counts as estimated.
type Estimator struct{}

// CountTokens returns EstimateTokens(s).
func (Estimator) CountTokens(s string) int { return EstimateTokens(s) }

// Counter returns tc, or Estimator when tc is nil, and whether the counts it
// gives are estimates.
func Counter(tc TokenCounter) (c TokenCounter, estimated bool) {
	switch tc.(type) {
	case nil:
		return Estimator{}, true
	case Estimator, *Estimator:
		return tc, true
	}
	return tc, false
}

// Func adapts two functions to corpus.Proposer. A nil field makes its method
// return an error.
type Func struct {
	ProposeFunc func(ctx context.Context, req corpus.ProposeRequest) (corpus.Proposal, error)
	ReviseFunc  func(ctx context.Context, req corpus.ReviseRequest) (corpus.Revision, error)
}

// Propose calls f.ProposeFunc.
func (f Func) Propose(ctx context.Context, req corpus.ProposeRequest) (corpus.Proposal, error) {
	if f.ProposeFunc == nil {
		return corpus.Proposal{}, fmt.Errorf("proposer.Func: no ProposeFunc")
	}
	return f.ProposeFunc(ctx, req)
}

// Revise calls f.ReviseFunc.
func (f Func) Revise(ctx context.Context, req corpus.ReviseRequest) (corpus.Revision, error) {
	if f.ReviseFunc == nil {
		return corpus.Revision{}, fmt.Errorf("proposer.Func: no ReviseFunc")
	}
	return f.ReviseFunc(ctx, req)
}

var _ corpus.Proposer = Func{}
