package model

import (
	"math"

	"triage/model/priority"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/shapes"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// HeadScope is the GoMLX scope of the priority head.
const HeadScope = "head"

// NumFeatures is the number of parent features appended to the hidden state.
const NumFeatures = priority.NumFeatures

// Logits is the whole priority model as a graph function: decoder, last-token
// gather, feature standardization and the head MLP. Inputs: tokens,
// positions, segments [B, T] int32 (see attentionBias), last [B, K] int32 (the
// position of each scored edit's last token), features [B, K, NumFeatures]
// float32 (raw, standardized in the graph). Output: logits [B, K, Bins] float32.
//
// Like all GoMLX graph functions it panics on malformed shapes; call it inside
// an Exec or Trainer, which recover the panic into an error.
func (m *Model) Logits(mctx *mlctx.Context, tokens, positions, segments, last, features *Node) *Node {
	h := m.hidden(mctx, tokens, positions, segments) // [B, T, hidden]
	return m.head(mctx.In(HeadScope), h, last, features)
}

// gatherLast takes hidden[b, last[b, k]] for hidden [B, T, H] and last [B, K]:
// [B, K, H]. Gather, not Slice (Slice's gradient needs Pad, missing in Go).
func gatherLast(hidden, last *Node) *Node {
	g := hidden.Graph()
	b, k := last.Shape().Dimensions[0], last.Shape().Dimensions[1]
	bIdx := Iota(g, shapes.Make(dtypes.Int32, b, k, 1), 0)                                    // [B, K, 1]
	idx := Concatenate([]*Node{bIdx, Reshape(ConvertDType(last, dtypes.Int32), b, k, 1)}, -1) // [B, K, 2]
	return Gather(hidden, idx)                                                                // [B, K, H]
}

// head maps the gathered hidden states ⊕ standardized features through a
// two-layer SiLU MLP to Bins logits. Variables (float32, trainable unless
// noted): feature_mean, feature_std (untrainable; set by SetFeatureStats),
// dense_0/{weight [hid, H+F], bias}, dense_1/{weight [Bins, hid], bias}.
func (m *Model) head(mctx *mlctx.Context, hidden, last, features *Node) *Node {
	g := hidden.Graph()
	z := ConvertDType(gatherLast(hidden, last), dtypes.Float32) // [B, K, H]
	mean := frozenParam(mctx, g, "feature_mean", dtypes.Float32, zerosInit, NumFeatures)
	std := frozenParam(mctx, g, "feature_std", dtypes.Float32, onesInit, NumFeatures)
	f := Div(Sub(features, Reshape(mean, 1, 1, NumFeatures)), Reshape(std, 1, 1, NumFeatures))
	z = Concatenate([]*Node{z, f}, -1) // [B, K, H+F]
	z = dense(mctx.In("dense_0"), z, m.Opts.HeadHidden)
	z = Mul(z, Logistic(z))                          // SiLU
	return dense(mctx.In("dense_1"), z, m.Opts.Bins) // [B, K, Bins]
}

// dense is a float32 nn.Linear with bias, weight [out, in].
func dense(mctx *mlctx.Context, x *Node, out int) *Node {
	g := x.Graph()
	in := x.Shape().Dimensions[x.Rank()-1]
	w := trainableParam(mctx, g, "weight", dtypes.Float32, normalInit(1/math.Sqrt(float64(in))), out, in)
	b := trainableParam(mctx, g, "bias", dtypes.Float32, zerosInit, out)
	y := Einsum("bki,oi->bko", x, w) // [B, K, out]
	return Add(y, Reshape(b, 1, 1, out))
}
