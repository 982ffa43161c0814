package train

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/shapes"

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

// SiblingRankLoss is a ranking term over each parent's edits: for every
// pair of siblings (i, j) where i's label is better (i is solved within
// its remaining depth in fewer expansions, or i is solved and j is not),
// softplus(z_j − z_i), where z is the model's log-probability that the
// edit is solved within its remaining depth, log Σ_{t ≤ b} p_t. Averaged
// over the ordered pairs (zero when a parent has none). logits [R, K,
// bins]; t, b, mask [R, K] as SurvivalLoss. It pulls the model to order a
// parent's edits as their labels do, which the per-edge likelihood only
// does through calibration (the paper's sibling-ranker ablation ranks by
// such a term alone).
func SiblingRankLoss(logits, t, b, mask *Node) *Node {
	g := logits.Graph()
	dims := logits.Shape().Dimensions
	r, k, bins := dims[0], dims[1], dims[2]
	logp := LogSoftmax(ConvertDType(logits, dtypes.Float32), -1) // [R, K, bins]
	bin := Iota(g, shapes.Make(dtypes.Int32, r, k, bins), 2)
	b3 := BroadcastToDims(Reshape(ConvertDType(b, dtypes.Int32), r, k, 1), r, k, bins)
	within := LessThan(bin, b3) // bins j < b: solve distance j+1 ≤ b
	neg := Scalar(g, dtypes.Float32, -1e9)
	masked := Where(within, logp, BroadcastToDims(neg, r, k, bins))
	mx := StopGradient(ReduceAndKeep(masked, ReduceMax, -1))                      // [R, K, 1]
	z := Add(Log(ReduceSum(Exp(Sub(masked, mx)), -1)), Reshape(mx, r, k))         // [R, K]
	ti := ConvertDType(t, dtypes.Float32)                                         // 0: censored
	m := ConvertDType(mask, dtypes.Float32)                                       // [R, K]
	big := Scalar(g, dtypes.Float32, 1e6)                                         // a censored label ranks last
	rank := Where(GreaterThan(ti, ZerosLike(ti)), ti, BroadcastToDims(big, r, k)) // [R, K]
	ri, rj := Reshape(rank, r, k, 1), Reshape(rank, r, 1, k)                      // i better than j: ri < rj
	better := ConvertDType(LessThan(BroadcastToDims(ri, r, k, k), BroadcastToDims(rj, r, k, k)), dtypes.Float32)
	pairs := Mul(better, Mul(BroadcastToDims(Reshape(m, r, k, 1), r, k, k), BroadcastToDims(Reshape(m, r, 1, k), r, k, k)))
	diff := Sub(BroadcastToDims(Reshape(z, r, 1, k), r, k, k), BroadcastToDims(Reshape(z, r, k, 1), r, k, k)) // z_j − z_i
	soft := Add(Max(diff, ZerosLike(diff)), Log1P(Exp(Neg(Abs(diff)))))                                       // softplus, stable
	count := Max(ReduceAllSum(pairs), OnesLike(ReduceAllSum(pairs)))
	return Div(ReduceAllSum(Mul(soft, pairs)), count)
}
