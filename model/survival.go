package model

import (
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
