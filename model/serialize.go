package model

import (
	"math"

	"triage/corpus"
)

// Tokenizer encodes text into token ids; model/tokenizer's Tokenizer
// satisfies it.
type Tokenizer interface {
	Encode(s string) []int32
}

// Section markers of the serialized input, encoded as plain text.
const (
	MarkerFeedback  = "### Feedback\n"
	MarkerDiagnosis = "\n### Diagnosis\n"
	MarkerEdit      = "\n### Edit\n"
)

// Limits are the token budgets of the three texts of an edge.
type Limits struct {
	Feedback  int `json:"feedback"`
	Diagnosis int `json:"diagnosis"`
	Edit      int `json:"edit"`
}

// DefaultLimits are DESIGN.md's: feedback ≤ 375, diagnosis ≤ 470, edit ≤ 175 tokens.
func DefaultLimits() Limits { return Limits{Feedback: 375, Diagnosis: 470, Edit: 175} }

// Parent is what an edge's parent contributes to its input: its execution
// feedback, its diagnosis and its four raw features (see ParentFeatures).
type Parent struct {
	Feedback  string
	Diagnosis string
	Features  [NumFeatures]float32
}

// EdgeInput is one edge to score: its parent, its edit text, and its
// remaining depth B (1 ≤ B ≤ D; used for s(e) only, not a model input).
type EdgeInput struct {
	Parent Parent
	Edit   string
	B      int
}

// ParentFeatures returns the raw parent features, in order: pass rate,
// normalized depth (depth/maxDepth), failed-test fraction, normalized program
// length (ln(1+bytes)/ln(1+4096)). The head standardizes them with the mean
// and std stored in the model (SetFeatureStats).
func ParentFeatures(passRate, failedFrac float64, depth, maxDepth, programBytes int) [NumFeatures]float32 {
	d := 0.0
	if maxDepth > 0 {
		d = float64(depth) / float64(maxDepth)
	}
	l := math.Log1p(float64(max(programBytes, 0))) / math.Log1p(4096)
	return [NumFeatures]float32{float32(passRate), float32(d), float32(failedFrac), float32(l)}
}

// EdgeFromTree builds the input of edge e of tree t (parent feedback,
// diagnosis, features; edit text; b = D − depth(parent)).
func EdgeFromTree(t *corpus.Tree, e corpus.EdgeID) EdgeInput {
	edge := &t.Edges[e]
	p := &t.Nodes[edge.Parent]
	return EdgeInput{
		Parent: Parent{
			Feedback:  p.Exec.Feedback,
			Diagnosis: p.Diagnosis,
			Features:  ParentFeatures(p.Exec.PassRate, p.Exec.FailedFrac, p.Depth, t.D, len(p.Program)),
		},
		Edit: edge.Edit.Text,
		B:    t.D - p.Depth,
	}
}

// encodeLimited encodes s and keeps at most limit tokens. Texts much longer
// than the limit are cut to 32 bytes per allowed token before encoding, which
// bounds tokenizer time and leaves the kept prefix unchanged in practice.
func encodeLimited(tok Tokenizer, s string, limit int) []int32 {
	if limit <= 0 {
		return nil
	}
	if maxBytes := 32 * limit; len(s) > maxBytes {
		s = s[:maxBytes]
	}
	ids := tok.Encode(s)
	if len(ids) > limit {
		ids = ids[:limit]
	}
	return ids
}

// SerializeParent returns the shared prefix of a parent's edges:
// MarkerFeedback, feedback (≤ lim.Feedback tokens), MarkerDiagnosis,
// diagnosis (≤ lim.Diagnosis tokens).
func SerializeParent(tok Tokenizer, lim Limits, p Parent) []int32 {
	var ids []int32
	ids = append(ids, tok.Encode(MarkerFeedback)...)
	ids = append(ids, encodeLimited(tok, p.Feedback, lim.Feedback)...)
	ids = append(ids, tok.Encode(MarkerDiagnosis)...)
	ids = append(ids, encodeLimited(tok, p.Diagnosis, lim.Diagnosis)...)
	return ids
}

// SerializeEdit returns the tokens of one edit: MarkerEdit, edit (≤ lim.Edit tokens).
func SerializeEdit(tok Tokenizer, lim Limits, edit string) []int32 {
	return append(tok.Encode(MarkerEdit), encodeLimited(tok, edit, lim.Edit)...)
}
