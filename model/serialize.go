package model

import (
	"triage/model/priority"
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

// DefaultLimits are docs/design.md's: feedback ≤ 375, diagnosis ≤ 470, edit ≤ 175 tokens.
func DefaultLimits() Limits { return Limits{Feedback: 375, Diagnosis: 470, Edit: 175} }

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
func SerializeParent(tok Tokenizer, lim Limits, p *priority.Edge) []int32 {
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
