// Package priority holds the one wire type of the priority model, Edge (what
// a scorer sees of one frontier edge), the model's output Dist (a
// distribution over the edge's solve distance), and CodeTriage's score
// s(e). Corpus replay, live search, training and the HTTP server all build
// and read these same types, so a training example and a scoring input of
// the same edge are identical by construction. The package imports nothing
// of this module and no ML library.
//
// Imports: nothing of triage.
package priority

import (
	"errors"
	"fmt"
	"math"
)

// NumFeatures is the number of numeric parent features (see Edge.Features).
const NumFeatures = 4

// ProgramLenScale normalizes program length: ln(1+bytes)/ln(1+ProgramLenScale).
const ProgramLenScale = 4096

// Edge is one frontier edge as the priority model sees it: its parent
// program's execution feedback, diagnosis and raw numeric state, the edit's
// text, and the edge's remaining depth.
//
// Remaining is b(e) = D − depth(child) + 1 = MaxDepth − Depth: it enters the
// score s(e) only, never the model (docs/design.md "The priority model and s(e)").
// Program is the parent's source; the paper's model does not read it, a
// checkpoint may (its options say so), and it may be left empty otherwise.
type Edge struct {
	Feedback  string `json:"feedback"`
	Diagnosis string `json:"diagnosis"`
	Edit      string `json:"edit"`
	Program   string `json:"program,omitempty"`
	// ParentEdit is the edit that produced the parent program (empty for a
	// root). The paper's model does not read it; the CPU model does (an
	// edit that undoes the previous one cannot be a fix).
	ParentEdit string  `json:"parent_edit,omitempty"`
	PassRate   float64 `json:"pass_rate"`
	FailedFrac float64 `json:"failed_frac"`
	// Depth is the parent's depth (root = 0); MaxDepth is D.
	Depth    int `json:"depth"`
	MaxDepth int `json:"max_depth"`
	// ProgramLen is the parent program's length in bytes; when zero and
	// Program is set, len(Program) is used.
	ProgramLen int `json:"program_len,omitempty"`
	Remaining  int `json:"remaining"`
	// Tests is how many tests the parent ran (0: not told), so a pass
	// rate reads with its grain: 2 of 3 is not 20 of 30.
	Tests int `json:"tests,omitempty"`
	// ProposerScore is the proposer's own confidence in the edit, a
	// log-probability on its own scale (corpus.ProposedEdit.Score); nil
	// when it gave none. Models compare it among the parent's edits.
	ProposerScore *float64 `json:"proposer_score,omitempty"`
}

// Validate checks the numeric fields: rates in [0, 1], 0 ≤ Depth < MaxDepth,
// Remaining = MaxDepth − Depth (1 ≤ b ≤ D), no negative length.
func (e *Edge) Validate() error {
	if !unit(e.PassRate) {
		return fmt.Errorf("pass_rate %v outside [0, 1]", e.PassRate)
	}
	if !unit(e.FailedFrac) {
		return fmt.Errorf("failed_frac %v outside [0, 1]", e.FailedFrac)
	}
	if e.MaxDepth < 1 || e.MaxDepth > MaxBins-1 {
		return fmt.Errorf("max_depth %d outside [1, %d]", e.MaxDepth, MaxBins-1)
	}
	if e.Depth < 0 || e.Depth >= e.MaxDepth {
		return fmt.Errorf("depth %d outside [0, max_depth %d)", e.Depth, e.MaxDepth)
	}
	if e.Remaining != e.MaxDepth-e.Depth {
		return fmt.Errorf("remaining %d, want max_depth − depth = %d", e.Remaining, e.MaxDepth-e.Depth)
	}
	if e.ProgramLen < 0 {
		return fmt.Errorf("program_len %d is negative", e.ProgramLen)
	}
	if e.Tests < 0 {
		return fmt.Errorf("tests %d is negative", e.Tests)
	}
	if e.ProposerScore != nil && (math.IsNaN(*e.ProposerScore) || math.IsInf(*e.ProposerScore, 0)) {
		return fmt.Errorf("proposer_score %v is not finite", *e.ProposerScore)
	}
	return nil
}

func unit(x float64) bool { return !math.IsNaN(x) && x >= 0 && x <= 1 }

// MaxBins bounds D+1 so a hostile input cannot ask for huge distributions.
const MaxBins = 65

// Bytes is the parent program's length used by the features.
func (e *Edge) Bytes() int {
	if e.ProgramLen == 0 && e.Program != "" {
		return len(e.Program)
	}
	return e.ProgramLen
}

// Features returns the four raw parent features, in order: pass rate,
// normalized depth (Depth/MaxDepth), failed-test fraction, normalized
// program length (ln(1+bytes)/ln(1+4096)). A model standardizes them with
// the training split's mean and std, which its checkpoint stores.
func (e *Edge) Features() [NumFeatures]float32 {
	d := 0.0
	if e.MaxDepth > 0 {
		d = float64(e.Depth) / float64(e.MaxDepth)
	}
	l := math.Log1p(float64(max(e.Bytes(), 0))) / math.Log1p(ProgramLenScale)
	return [NumFeatures]float32{float32(e.PassRate), float32(d), float32(e.FailedFrac), float32(l)}
}

// Dist is a model's distribution over an edge's solve distance t:
// Dist[j-1] = P(t = j) for j = 1..D, and Dist[D] = P(t > D).
type Dist []float64

// Validate checks that d is a probability vector over at least two bins:
// finite, non-negative entries summing to 1 within 1e-3.
func (d Dist) Validate() error {
	if len(d) < 2 {
		return fmt.Errorf("distribution of %d bins, want ≥ 2", len(d))
	}
	var sum float64
	for i, p := range d {
		if math.IsNaN(p) || math.IsInf(p, 0) || p < 0 {
			return fmt.Errorf("entry %d = %v is not a probability", i, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-3 {
		return fmt.Errorf("entries sum to %v, want 1", sum)
	}
	return nil
}

// ErrRemaining is returned by S for a remaining depth outside [1, D].
var ErrRemaining = errors.New("remaining depth outside [1, D]")

// S is CodeTriage's priority s(e) = (1/b) Σ_{m=1..b} F(m) with
// F(m) = Σ_{j≤m} p_j: the mean probability of a fix within m expansions
// over the horizons the edge can still observe. b must lie in [1, D] where
// D = len(d) − 1.
func (d Dist) S(b int) (float64, error) {
	if b < 1 || b > len(d)-1 {
		return 0, fmt.Errorf("%w: b = %d, D = %d", ErrRemaining, b, len(d)-1)
	}
	var f, s float64
	for m := 1; m <= b; m++ {
		f += d[m-1]
		s += f
	}
	return s / float64(b), nil
}

// P1 is the ablation score "p1 only": the probability that the edge's child
// is itself a fix (CodeTriage Table 1).
func (d Dist) P1() float64 {
	if len(d) == 0 {
		return 0
	}
	return d[0]
}

// Softmax turns logits into a Dist (float64 math, max-shifted).
func Softmax(logits []float32) Dist {
	mx := math.Inf(-1)
	for _, l := range logits {
		mx = math.Max(mx, float64(l))
	}
	p := make(Dist, len(logits))
	var s float64
	for i, l := range logits {
		p[i] = math.Exp(float64(l) - mx)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

// Horizon returns d over D+1 bins for a depth limit D below d's: the
// probabilities of t = 1..D, then everything beyond D in the last bin (d
// itself when D is not below d's limit or is not positive).
func (d Dist) Horizon(D int) Dist {
	if D < 1 || D >= len(d)-1 {
		return d
	}
	out := make(Dist, D+1)
	copy(out, d[:D])
	for _, p := range d[D:] {
		out[D] += p
	}
	return out
}
