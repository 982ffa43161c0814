package manifest_test

import (
	"errors"
	"testing"

	"triage/corpus"
	"triage/corpus/manifest"
)

// TestReplicateOptionsValidate: corpus replicate's checks name the field.
func TestReplicateOptionsValidate(t *testing.T) {
	src := []string{t.TempDir()}
	for _, tc := range []struct {
		opts manifest.ReplicateOptions
		out  string
		want string
	}{
		{manifest.ReplicateOptions{Copies: 0, RowsPerGroup: 1}, "o", "Out and Copies >= 1 are required"},
		{manifest.ReplicateOptions{Copies: 1, RowsPerGroup: 1}, "", "Out and Copies >= 1 are required"},
		{manifest.ReplicateOptions{Copies: 1, Shards: -1, RowsPerGroup: 1}, "o", "Shards must be ≥ 0 and RowsPerGroup ≥ 1"},
		{manifest.ReplicateOptions{Copies: 1, RowsPerGroup: 1, Split: "dev"}, "o", `Split "dev": want train, val, test`},
	} {
		err := tc.opts.Validate(tc.out, src)
		var ie *corpus.InputError
		if err == nil || !errors.As(err, &ie) || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want bad input %q", tc.opts, err, tc.want)
		}
	}
}
