package main

import (
	"context"
	"errors"

	"triage/checkpoints"
	"triage/model"
	"triage/policy"
)

// loadLearnedScorer opens a checkpoint folder ("" for the embedded default)
// with model.OpenScorer. A missing, truncated or mismatched checkpoint is
// bad input (exit 2).
func loadLearnedScorer(ctx context.Context, path string) (policy.Scorer, func(), error) {
	if path == "" {
		p, err := checkpoints.DefaultPath()
		if err != nil {
			return nil, func() {}, err
		}
		path = p
	}
	s, release, err := model.OpenScorer(path)
	switch {
	case errors.Is(err, model.ErrCheckpoint):
		return nil, release, badInput("%v", err)
	case err != nil:
		return nil, release, err
	}
	return s, release, nil
}
