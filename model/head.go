package model

import (
	"fmt"
	"math"

	"triage/model/priority"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
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

// head is the Qwen3 model's head: the hidden state at each scored edit's
// last token (gathered from hidden [B, T, H] at last [B, K]) through
// priorityHead.
func (m *Model) head(mctx *mlctx.Context, hidden, last, features *Node) *Node {
	z := ConvertDType(gatherLast(hidden, last), dtypes.Float32) // [B, K, H]
	return priorityHead(mctx, z, features, m.Opts.HeadHidden, m.Opts.Bins)
}

// priorityHead is the head every architecture shares: the encoder output
// z [B, K, H] ⊕ the standardized parent features [B, K, 4] through a
// two-layer SiLU MLP to bins logits [B, K, bins]. Variables (float32,
// trainable unless noted): feature_mean, feature_std (untrainable; set by
// SetFeatureStats), dense_0/{weight [hid, H+F], bias}, dense_1/{weight
// [bins, hid], bias}.
func priorityHead(mctx *mlctx.Context, z, features *Node, hid, bins int) *Node {
	g := z.Graph()
	mean := statParam(mctx, g, "feature_mean", dtypes.Float32, zerosInit, NumFeatures)
	std := statParam(mctx, g, "feature_std", dtypes.Float32, onesInit, NumFeatures)
	f := Div(Sub(features, Reshape(mean, 1, 1, NumFeatures)), Reshape(std, 1, 1, NumFeatures))
	f = ClipScalar(f, -8, 8)           // robust to inputs outside the training range
	z = Concatenate([]*Node{z, f}, -1) // [B, K, H+F]
	z = dense(mctx.In("dense_0"), z, hid)
	z = Mul(z, Logistic(z))                   // SiLU
	return dense(mctx.In("dense_1"), z, bins) // [B, K, bins]
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

// SetFeatureStats stores in mctx the mean and standard deviation the head
// uses to standardize the raw parent features (fitted on the training
// split). Every std must be positive and finite.
func SetFeatureStats(mctx *mlctx.Context, mean, std [NumFeatures]float32) error {
	for i, s := range std {
		if !(s > 0) || math.IsInf(float64(s), 0) || math.IsNaN(float64(mean[i])) || math.IsInf(float64(mean[i]), 0) {
			return fmt.Errorf("model: feature %d: mean %g, std %g: want finite mean, std > 0", i, mean[i], s)
		}
	}
	if err := SetVariable(mctx, HeadScope+".feature_mean", tensors.FromFlatDataAndDimensions(append([]float32(nil), mean[:]...), NumFeatures), false); err != nil {
		return err
	}
	return SetVariable(mctx, HeadScope+".feature_std", tensors.FromFlatDataAndDimensions(append([]float32(nil), std[:]...), NumFeatures), false)
}
