package model

import (
	"math"
	"testing"

	"triage/model/priority"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph test
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

func TestSurvivalNLL(t *testing.T) {
	ref := loadReference(t).Survival
	n, bins := len(ref.Logits), len(ref.Logits[0])
	flat := make([]float32, 0, n*bins)
	for _, row := range ref.Logits {
		flat = append(flat, row...)
	}
	exec, err := NewExec(testBackend(t), func(logits, tt, b *Node) (*Node, *Node) {
		nll := SurvivalNLL(logits, tt, b)
		grad := Gradient(ReduceSum(nll), logits)[0]
		return nll, grad
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(flat, n, bins),
		tensors.FromFlatDataAndDimensions(ref.T, n), tensors.FromFlatDataAndDimensions(ref.B, n))
	if err != nil {
		t.Fatal(err)
	}
	nll := tensors.MustCopyFlatData[float32](outs[0])
	grad := tensors.MustCopyFlatData[float32](outs[1])
	var mean float64
	for i := range nll {
		p := priority.Softmax(ref.Logits[i])
		// Hand-computed NLL and gradient.
		var want float64
		wantGrad := make([]float64, bins)
		if ref.T[i] > 0 {
			want = -math.Log(p[ref.T[i]-1])
			for j := range wantGrad {
				wantGrad[j] = p[j]
			}
			wantGrad[ref.T[i]-1] -= 1
		} else {
			var tail float64
			for j := int(ref.B[i]); j < bins; j++ {
				tail += p[j]
			}
			want = -math.Log(tail)
			for j := range wantGrad {
				wantGrad[j] = p[j]
				if j >= int(ref.B[i]) {
					wantGrad[j] -= p[j] / tail
				}
			}
		}
		if math.Abs(float64(nll[i])-want) > 1e-5 {
			t.Errorf("row %d (t=%d b=%d): nll %g, hand %g", i, ref.T[i], ref.B[i], nll[i], want)
		}
		for j := range wantGrad {
			if math.Abs(float64(grad[i*bins+j])-wantGrad[j]) > 1e-5 {
				t.Errorf("row %d bin %d: gradient %g, hand %g", i, j, grad[i*bins+j], wantGrad[j])
			}
		}
		mean += float64(nll[i]) / float64(n)
	}
	if math.Abs(mean-ref.MeanNLL) > 1e-5 {
		t.Errorf("mean NLL %.7f, PyTorch reference %.7f", mean, ref.MeanNLL)
	}
}
