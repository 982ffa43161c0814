package model

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// rmsNorm is Qwen3RMSNorm over the last axis of x: in float32,
// y = x / sqrt(mean(x²) + eps), cast back to x's dtype, times the frozen
// variable "weight" ([d]) of scope mctx.
func rmsNorm(mctx *mlctx.Context, x *Node, eps float64) *Node {
	dtype := x.DType()
	d := x.Shape().Dimensions[x.Rank()-1]
	xf := ConvertDType(x, dtypes.Float32)
	ms := ReduceAndKeep(Square(xf), ReduceMean, -1)             // [..., 1]
	y := ConvertDType(Div(xf, Sqrt(AddScalar(ms, eps))), dtype) // not Rsqrt: no gradient in v0.26
	w := frozenParam(mctx, x.Graph(), "weight", dtype, onesInit, d)
	bdims := make([]int, x.Rank()) // [1, ..., 1, d]
	for i := range bdims {
		bdims[i] = 1
	}
	bdims[len(bdims)-1] = d
	return Mul(y, Reshape(w, bdims...))
}
