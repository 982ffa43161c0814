package train

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"triage/corpus"
	"triage/corpus/shard"
)

// writeCorpus writes trees as one Parquet shard in a new folder.
func writeCorpus(t *testing.T, trees []*corpus.Tree) string {
	t.Helper()
	dir := t.TempDir()
	if err := shard.WriteShardFile(filepath.Join(dir, "part-00000.parquet"), trees); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTrainingIsReproducible trains the default CPU model (--arch small,
// its default sizes) twice on the same corpus with the same seed and
// checks that the weights are bit-identical; a third run with another
// seed must differ, or the comparison proves nothing.
func TestTrainingIsReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the default small model three times")
	}
	dir := writeCorpus(t, synthTrees(24, 8, 3, 3, 11))
	weights := func(seed uint64) []byte {
		o := DefaultOptions()
		o.Epochs, o.ValEvery, o.MaxDepth, o.Seed = 2, 5, 3, seed
		out := t.TempDir()
		env := tinyEnv(t, nil, out)
		env.Train = ShardSource{Dirs: []string{dir}, Split: corpus.SplitTrain}
		env.Val = ShardSource{Dirs: []string{dir}, Split: corpus.SplitVal}
		if _, err := Train(context.Background(), o, env); err != nil {
			t.Fatal(err)
		}
		w, err := os.ReadFile(filepath.Join(out, "weights.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	a, b := weights(1), weights(1)
	if !bytes.Equal(a, b) {
		t.Errorf("two trainings with seed 1 wrote different weights (%d and %d bytes)", len(a), len(b))
	}
	if c := weights(2); bytes.Equal(a, c) {
		t.Error("seeds 1 and 2 wrote the same weights")
	}
}
