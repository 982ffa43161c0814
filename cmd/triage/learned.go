package main

import (
	"errors"
	"fmt"
	"slices"

	"triage/checkpoints"
	"triage/model"
	"triage/policy"
)

// openCheckpoint resolves a --checkpoint value ("" for the embedded
// default) and opens its model with model.OpenScorer: the one place where
// a checkpoint becomes a scorer, which the commands pass down. A missing,
// truncated or mismatched checkpoint is bad input (exit 2).
func openCheckpoint(path string) (policy.Scorer, func(), error) {
	if path == "" {
		p, err := checkpoints.DefaultPath()
		if err != nil {
			return nil, func() {}, noDefaultHint(err)
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

// learnedScorer opens the checkpoint when one of the policies names needs
// a scorer (learned, hybrid), and returns nil otherwise. free releases it.
func learnedScorer(names []string, checkpoint string) (policy.Scorer, func(), error) {
	i := slices.IndexFunc(names, policy.NeedsScorer)
	if i < 0 {
		return nil, func() {}, nil
	}
	s, free, err := openCheckpoint(checkpoint)
	if err != nil {
		if checkpoint == "" {
			return nil, free, fmt.Errorf("policy %s: %w", names[i], err)
		}
		return nil, free, fmt.Errorf("load checkpoint %s: %w", checkpoint, err)
	}
	return s, free, nil
}

// noDefaultHint turns checkpoints.ErrNoDefault into the CLI's message,
// which names the flag that gives another checkpoint.
func noDefaultHint(err error) error {
	if errors.Is(err, checkpoints.ErrNoDefault) {
		return &flaggedError{msg: "this build embeds no default checkpoint (run `make checkpoint`, or pass --checkpoint)", err: err}
	}
	return err
}
