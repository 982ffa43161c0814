package model

import (
	"fmt"
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// SurvivalNLL is the discrete-survival negative log-likelihood per example:
// logits [N, D+1] (float32; bin j < D means solve distance j+1, bin D means
// "> D"), t and b [N] int32. An observed example (1 ≤ t ≤ b) costs −log p_t; a
// censored one (t = 0: solve distance > b) costs −log(1 − F(b)) = −log Σ_{j>b} p_j.
// Returns [N] float32. Graph function: panics on malformed shapes.
func SurvivalNLL(logits, t, b *Node) *Node {
	g := logits.Graph()
	n, bins := logits.Shape().Dimensions[0], logits.Shape().Dimensions[1]
	logp := LogSoftmax(logits, -1)                        // [N, bins]
	bin := Iota(g, shapes.Make(dtypes.Int32, n, bins), 1) // [N, bins]: bin index j
	t2 := BroadcastToDims(Reshape(ConvertDType(t, dtypes.Int32), n, 1), n, bins)
	b2 := BroadcastToDims(Reshape(ConvertDType(b, dtypes.Int32), n, 1), n, bins)
	zero := ZerosLike(logp)
	// Observed: −log p_t, bin t−1.
	obs := Neg(ReduceSum(Where(Equal(bin, Sub(t2, OnesLike(t2))), logp, zero), -1)) // [N]
	// Censored: −log Σ_{j ≥ b} p_j (bins after the first b), a masked log-sum-exp.
	tail := GreaterOrEqual(bin, b2)
	neg := Scalar(g, dtypes.Float32, maskNegative)
	mx := StopGradient(ReduceAndKeep(Where(tail, logp, neg), ReduceMax, -1)) // [N, 1]
	sum := ReduceSum(Where(tail, Exp(Sub(logp, mx)), zero), -1)              // [N]
	cens := Neg(Add(Log(sum), Reshape(mx, n)))
	return Where(GreaterOrEqual(ConvertDType(t, dtypes.Int32), ScalarOne(g, dtypes.Int32)), obs, cens)
}

// BinProbs returns the probabilities of one row of logits (float64 math).
func BinProbs(logits []float32) []float64 {
	mx := math.Inf(-1)
	for _, l := range logits {
		mx = math.Max(mx, float64(l))
	}
	p := make([]float64, len(logits))
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

// PriorityScore is s(e) = (1/b) Σ_{m=1..b} F(m) with F(m) = Σ_{j≤m} p_j, for
// the distribution p over D+1 bins (p[j] is solve distance j+1, the last bin
// "> D") and remaining depth 1 ≤ b ≤ D. It is the mean probability of a fix
// within m expansions over the observable horizons.
func PriorityScore(p []float64, b int) (float64, error) {
	if b < 1 || b > len(p)-1 {
		return 0, fmt.Errorf("priority score: remaining depth b = %d outside [1, %d]", b, len(p)-1)
	}
	var f, s float64
	for m := 1; m <= b; m++ {
		f += p[m-1]
		s += f
	}
	return s / float64(b), nil
}
