package train

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math

	"triage/model"
)

// SurvivalLoss is the training objective: the mean discrete-survival
// negative log-likelihood (model.SurvivalNLL) over the edit slots that hold
// an example. logits [R, K, bins]; t, b [R, K] int32 (t = 0: censored, the
// solve distance exceeds b); mask [R, K] float32 (1 for a real edit, 0 for
// padding, whose gradient is exactly zero). Returns a float32 scalar.
// Graph function: panics on malformed shapes.
func SurvivalLoss(logits, t, b, mask *Node) *Node {
	dims := logits.Shape().Dimensions
	n, bins := dims[0]*dims[1], dims[2]
	flat := ConvertDType(Reshape(logits, n, bins), dtypes.Float32)
	tf, bf := Reshape(t, n), Reshape(b, n)
	m := ConvertDType(Reshape(mask, n), dtypes.Float32)
	// Padding slots get a harmless label (t = 1 ≤ b = 1) so their NLL is
	// finite; the mask then zeroes them and their gradient.
	one := OnesLike(tf)
	real := GreaterThan(m, ZerosLike(m))
	tf = Where(real, tf, one)
	bf = Where(real, bf, OnesLike(bf))
	nll := Mul(model.SurvivalNLL(flat, tf, bf), m)
	count := Max(ReduceAllSum(m), OnesLike(ReduceAllSum(m)))
	return Div(ReduceAllSum(nll), count)
}
