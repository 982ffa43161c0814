package experiment

import (
	"context"
	"errors"
	"strings"
	"testing"

	"triage/corpus"
	"triage/train"
)

// TestLODOCommandChecks: cv --lodo's option checks come before any corpus
// is opened and name the field.
func TestLODOCommandChecks(t *testing.T) {
	setup := train.Setup{Out: "o"}
	two := LODOConfig{Setup: setup, Names: []string{"a", "b"}, Folders: [][]string{{"no-such-a"}, {"no-such-b"}}}
	grid := two
	grid.LODO.HybridGrid = "C"
	for _, tc := range []struct {
		c    LODOConfig
		want string
	}{
		{LODOConfig{Setup: setup, Names: []string{"a"}, Folders: [][]string{{"x"}}}, "Names: want at least two datasets"},
		{grid, "LODO.HybridGrid: "},
		{two, "Corpus no-such-a does not exist"},
	} {
		_, err := LODOCommand(context.Background(), tc.c)
		var ie *corpus.InputError
		if err == nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v, want bad input %q", err, tc.want)
		}
	}
}
