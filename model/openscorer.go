package model

import (
	"fmt"
	"os"
)

// ScorerBackend is the backend learned scorers run on: GOMLX_BACKEND when
// set (e.g. xla:cuda), else DefaultBackend.
func ScorerBackend() string {
	if b := os.Getenv("GOMLX_BACKEND"); b != "" {
		return b
	}
	return DefaultBackend
}

// OpenScorer loads the checkpoint folder dir and compiles its model for
// scoring (up to 64 rows an execution) on ScorerBackend. release frees the
// scorer and its backend; it is never nil. A missing, truncated or
// mismatched checkpoint is ErrCheckpoint.
func OpenScorer(dir string) (s *Scorer, release func(), err error) {
	release = func() {}
	b, err := LoadCheckpoint(dir)
	if err != nil {
		return nil, release, err
	}
	be, err := NewBackend(ScorerBackend())
	if err != nil {
		return nil, release, fmt.Errorf("learned policy: %w", err)
	}
	if s, err = b.Scorer(be, 64); err != nil {
		be.Finalize()
		return nil, release, fmt.Errorf("learned policy: %w", err)
	}
	return s, func() { s.Close(); be.Finalize() }, nil
}
