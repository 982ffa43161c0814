package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"triage/checkpoints"
	"triage/model"
	"triage/policy"
)

// learnedBackend is the backend learned scorers run on: GOMLX_BACKEND when
// set (e.g. xla:cuda), else the CPU backend.
func learnedBackend() string {
	if b := os.Getenv("GOMLX_BACKEND"); b != "" {
		return b
	}
	return model.DefaultBackend
}

// loadLearnedScorer opens a checkpoint folder ("" for the embedded default)
// and compiles its model on the learned backend. A missing, truncated or mismatched checkpoint is bad
// input (exit 2).
func loadLearnedScorer(ctx context.Context, path string) (policy.Scorer, func(), error) {
	if path == "" {
		p, err := checkpoints.DefaultPath()
		if err != nil {
			return nil, func() {}, err
		}
		path = p
	}
	b, err := model.LoadCheckpoint(path)
	if err != nil {
		if errors.Is(err, model.ErrCheckpoint) {
			return nil, func() {}, badInput("%v", err)
		}
		return nil, func() {}, err
	}
	be, err := model.NewBackend(learnedBackend())
	if err != nil {
		return nil, func() {}, fmt.Errorf("learned policy: %w", err)
	}
	s, err := b.Scorer(be, 64)
	if err != nil {
		be.Finalize()
		return nil, func() {}, fmt.Errorf("learned policy: %w", err)
	}
	return s, func() { s.Close(); be.Finalize() }, nil
}
