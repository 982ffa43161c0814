package model

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/shapes"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// maskNegative is the additive bias of a hidden key (float32 softmax).
const maskNegative = -1e30

// attentionBias builds the additive attention bias [B, 1, 1, T, T] (float32)
// from segment ids [B, T] (int32): -1 marks padding, 0 a shared prefix, s > 0
// one packed segment. Query i sees key j when j ≤ i, j is not padding, and j
// is in the prefix or in i's own segment; every token also sees itself, so no
// row is empty. With segments all 0 this is the causal mask with right padding.
func attentionBias(segments *Node) *Node {
	g := segments.Graph()
	b, t := segments.Shape().Dimensions[0], segments.Shape().Dimensions[1]
	segQ := Reshape(segments, b, t, 1) // [B, T, 1]
	segK := Reshape(segments, b, 1, t) // [B, 1, T]
	qi := Iota(g, shapes.Make(dtypes.Int32, t, t), 0)
	kj := Iota(g, shapes.Make(dtypes.Int32, t, t), 1)
	causal := BroadcastToDims(Reshape(LessOrEqual(kj, qi), 1, t, t), b, t, t)
	self := BroadcastToDims(Reshape(Equal(kj, qi), 1, t, t), b, t, t)
	zero := ScalarZero(g, dtypes.Int32)
	keyOK := BroadcastToDims(GreaterOrEqual(segK, zero), b, t, t)
	sameOrPrefix := LogicalOr(
		BroadcastToDims(Equal(segK, zero), b, t, t),
		Equal(BroadcastToDims(segK, b, t, t), BroadcastToDims(segQ, b, t, t)))
	visible := LogicalOr(LogicalAnd(LogicalAnd(causal, keyOK), sameOrPrefix), self) // [B, T, T]
	bias := Where(visible, Scalar(g, dtypes.Float32, 0), Scalar(g, dtypes.Float32, maskNegative))
	return Reshape(bias, b, 1, 1, t, t) // [B, kv heads, group, T, T] broadcast
}

// selfAttention is Qwen3Attention for x [B, T, hidden] under scope
// mctx ("…/self_attn"): q/k/v projections (LoRA where targeted), per-head
// q_norm/k_norm, RoPE, grouped-query attention with the additive bias, o_proj.
func (m *Model) selfAttention(mctx *mlctx.Context, x, cos, sin, bias *Node) *Node {
	c := m.Config
	b, t := x.Shape().Dimensions[0], x.Shape().Dimensions[1]
	nq, nkv, hd := c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim
	grp := nq / nkv
	q := Reshape(m.linear(mctx.In("q_proj"), "q_proj", x, nq*hd), b, t, nq, hd)   // [B, T, Hq, hd]
	k := Reshape(m.linear(mctx.In("k_proj"), "k_proj", x, nkv*hd), b, t, nkv, hd) // [B, T, Hkv, hd]
	v := Reshape(m.linear(mctx.In("v_proj"), "v_proj", x, nkv*hd), b, t, nkv, hd) // [B, T, Hkv, hd]
	q = applyRope(rmsNorm(mctx.In("q_norm"), q, c.RMSNormEps), cos, sin)
	k = applyRope(rmsNorm(mctx.In("k_norm"), k, c.RMSNormEps), cos, sin)
	q5 := Reshape(q, b, t, nkv, grp, hd)         // [B, T, Hkv, G, hd]; query head h = kv·G + g
	scores := Einsum("btkgd,bskd->bkgts", q5, k) // [B, Hkv, G, T, T]
	scores = Add(MulScalar(ConvertDType(scores, dtypes.Float32), 1/math.Sqrt(float64(hd))), bias)
	probs := ConvertDType(Softmax(scores, -1), x.DType())
	att := Einsum("bkgts,bskd->btkgd", probs, v) // [B, T, Hkv, G, hd]
	att = Reshape(att, b, t, nq*hd)              // [B, T, Hq·hd]
	return m.linear(mctx.In("o_proj"), "o_proj", att, c.HiddenSize)
}
