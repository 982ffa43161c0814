package model

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// HiddenStates runs the decoder on right-padded token rows (mask 1 = token,
// 0 = padding; all rows the same length) and returns the final-normed hidden
// states [B][T][hidden] as float32. Padded positions hold unspecified values.
func (m *Model) HiddenStates(backend backends.Backend, ids, mask [][]int32) ([][][]float32, error) {
	if len(ids) == 0 || len(ids) != len(mask) {
		return nil, fmt.Errorf("hidden states: %d id rows, %d mask rows", len(ids), len(mask))
	}
	b, t := len(ids), len(ids[0])
	tok := make([]int32, 0, b*t)
	pos := make([]int32, 0, b*t)
	seg := make([]int32, 0, b*t)
	for i := range ids {
		if len(ids[i]) != t || len(mask[i]) != t {
			return nil, fmt.Errorf("hidden states: row %d has %d ids and %d mask values, want %d", i, len(ids[i]), len(mask[i]), t)
		}
		for j := 0; j < t; j++ {
			if ids[i][j] < 0 || int(ids[i][j]) >= m.Config.VocabSize {
				return nil, fmt.Errorf("hidden states: token %d outside the vocabulary of %d", ids[i][j], m.Config.VocabSize)
			}
			tok = append(tok, ids[i][j])
			pos = append(pos, int32(j))
			s := int32(0)
			if mask[i][j] == 0 {
				s = -1
			}
			seg = append(seg, s)
		}
	}
	exec, err := mlctx.NewExec(backend, m.mctx, func(mctx *mlctx.Context, tokens, positions, segments *Node) *Node {
		return ConvertDType(m.hidden(mctx, tokens, positions, segments), dtypes.Float32)
	})
	if err != nil {
		return nil, fmt.Errorf("hidden states: %w", err)
	}
	defer exec.Finalize()
	out, err := exec.Exec(tensors.FromFlatDataAndDimensions(tok, b, t),
		tensors.FromFlatDataAndDimensions(pos, b, t), tensors.FromFlatDataAndDimensions(seg, b, t))
	if err != nil {
		return nil, fmt.Errorf("hidden states: %w", err)
	}
	flat, err := tensors.CopyFlatData[float32](out[0])
	if err != nil {
		return nil, fmt.Errorf("hidden states: %w", err)
	}
	h := m.Config.HiddenSize
	res := make([][][]float32, b)
	for i := range res {
		res[i] = make([][]float32, t)
		for j := range res[i] {
			res[i][j] = flat[(i*t+j)*h : (i*t+j+1)*h]
		}
	}
	return res, nil
}
