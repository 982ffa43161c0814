package report

import "triage/corpus"

type (
	corpusTree = corpus.Tree
	corpusEdge = corpus.EdgeID
)
