package model

import (
	"errors"
	"testing"
)

// TestOpenScorerBadCheckpoint: a folder without a checkpoint is
// ErrCheckpoint, with a release that can be called.
func TestOpenScorerBadCheckpoint(t *testing.T) {
	s, release, err := OpenScorer(t.TempDir())
	if s != nil || !errors.Is(err, ErrCheckpoint) {
		t.Fatalf("OpenScorer(empty folder) = %v, %v; want ErrCheckpoint", s, err)
	}
	release()
}
