package model

import (
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// mlp is Qwen3MLP under scope mctx ("…/mlp"): down(silu(gate(x)) ⊙ up(x)).
func (m *Model) mlp(mctx *mlctx.Context, x *Node) *Node {
	gate := m.linear(mctx.In("gate_proj"), "gate_proj", x, m.Config.IntermediateSize)
	up := m.linear(mctx.In("up_proj"), "up_proj", x, m.Config.IntermediateSize)
	act := Mul(Mul(gate, Logistic(gate)), up) // silu(gate) ⊙ up
	return m.linear(mctx.In("down_proj"), "down_proj", act, m.Config.HiddenSize)
}
