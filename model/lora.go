package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// LoRAModules are the linear modules LoRA may target.
var LoRAModules = []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}

// LoRAConfig configures low-rank adapters: W' = W + s·B·A with A [r, in] and
// B [out, r] in scopes …/<module>/lora_A and …/lora_B (variable "weight"),
// s = Alpha/Rank (Alpha/√Rank with RSLoRA).
type LoRAConfig struct {
	Rank    int      `json:"r"`
	Alpha   float64  `json:"lora_alpha"`
	Targets []string `json:"target_modules"`
	RSLoRA  bool     `json:"use_rslora"`
}

// DefaultLoRA is r = 8, alpha = 16 on q/k/v/o.
func DefaultLoRA() LoRAConfig {
	return LoRAConfig{Rank: 8, Alpha: 16, Targets: []string{"q_proj", "k_proj", "v_proj", "o_proj"}}
}

// Validate checks the rank, alpha and target names.
func (l LoRAConfig) Validate() error {
	if l.Rank <= 0 {
		return fmt.Errorf("lora: rank %d, want > 0", l.Rank)
	}
	if l.Alpha <= 0 || math.IsNaN(l.Alpha) || math.IsInf(l.Alpha, 0) {
		return fmt.Errorf("lora: alpha %g, want > 0", l.Alpha)
	}
	if len(l.Targets) == 0 {
		return fmt.Errorf("lora: no target modules")
	}
	for _, t := range l.Targets {
		if !slices.Contains(LoRAModules, t) {
			return fmt.Errorf("lora: unknown target module %q (want one of %v)", t, LoRAModules)
		}
	}
	return nil
}

// Scaling is the factor s of the low-rank update.
func (l LoRAConfig) Scaling() float64 {
	if l.RSLoRA {
		return l.Alpha / math.Sqrt(float64(l.Rank))
	}
	return l.Alpha / float64(l.Rank)
}

func (l LoRAConfig) targets(module string) bool { return slices.Contains(l.Targets, module) }

// delta is s·(x·Aᵀ)·Bᵀ for x [B, T, in], with float32 trainable A (PEFT's
// kaiming-uniform-like init, here normal 1/√in) and B (zeros), computed in x's dtype.
func (l LoRAConfig) delta(mctx *mlctx.Context, x *Node, out int) *Node {
	g := x.Graph()
	in := x.Shape().Dimensions[x.Rank()-1]
	a := trainableParam(mctx.In("lora_A"), g, "weight", dtypes.Float32, normalInit(1/math.Sqrt(float64(in))), l.Rank, in)
	b := trainableParam(mctx.In("lora_B"), g, "weight", dtypes.Float32, zerosInit, out, l.Rank)
	xa := Einsum("bti,ri->btr", x, ConvertDType(a, x.DType()))   // [B, T, r]
	xab := Einsum("btr,or->bto", xa, ConvertDType(b, x.DType())) // [B, T, out]
	return MulScalar(xab, l.Scaling())
}
