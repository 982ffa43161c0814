package train

import (
	"triage/corpus"
	"triage/train/traintest"
)

// synthTrees makes synthetic trees a model can learn from
// (traintest.SynthTrees).
var synthTrees = traintest.SynthTrees

// splitOf keeps the trees of one split.
func splitOf(trees []*corpus.Tree, split string) TreeSlice {
	return TreeSlice(traintest.SplitOf(trees, split))
}
