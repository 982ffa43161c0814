package model

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
)

// ropeInvFreq returns θ^(−2i/d) for i < d/2, computed like transformers does
// (float32 powers of the base).
func ropeInvFreq(headDim int, theta float64) []float32 {
	inv := make([]float32, headDim/2)
	for i := range inv {
		e := float32(2*i) / float32(headDim)
		inv[i] = float32(1 / math.Pow(theta, float64(e)))
	}
	return inv
}

// ropeCosSin returns cos and sin of the rotary angles for positions [B, T]
// (int32), each [B, T, 1, headDim] in dtype; the angle table is
// cat(pos·inv_freq, pos·inv_freq), in float32.
func ropeCosSin(positions *Node, headDim int, theta float64, dtype dtypes.DType) (cos, sin *Node) {
	g := positions.Graph()
	b, t := positions.Shape().Dimensions[0], positions.Shape().Dimensions[1]
	pos := ConvertDType(positions, dtypes.Float32)                         // [B, T]
	ang := Einsum("bt,f->btf", pos, Const(g, ropeInvFreq(headDim, theta))) // [B, T, hd/2]
	ang = Concatenate([]*Node{ang, ang}, -1)                               // [B, T, hd]
	ang = Reshape(ang, b, t, 1, headDim)                                   // [B, T, 1, hd]
	return ConvertDType(Cos(ang), dtype), ConvertDType(Sin(ang), dtype)
}

// rotateHalfMatrix is R with x·R = cat(−x₂, x₁) for x = cat(x₁, x₂): rotate_half
// as a constant product, which avoids Slice (its gradient needs Pad, missing
// in the Go backend).
func rotateHalfMatrix(headDim int) [][]float32 {
	half := headDim / 2
	rot := make([][]float32, headDim)
	for i := range rot {
		rot[i] = make([]float32, headDim)
	}
	for i := 0; i < half; i++ {
		rot[i+half][i] = -1 // out[i] = −x[i+half]
		rot[i][i+half] = 1  // out[i+half] = x[i]
	}
	return rot
}

// applyRope rotates x [B, T, heads, hd]: x·cos + rotate_half(x)·sin.
func applyRope(x, cos, sin *Node) *Node {
	hd := x.Shape().Dimensions[3]
	rot := ConvertDType(Const(x.Graph(), rotateHalfMatrix(hd)), x.DType())
	rx := Einsum("btnd,de->btne", x, rot) // [B, T, heads, hd]
	return Add(Mul(x, cos), Mul(rx, sin))
}
