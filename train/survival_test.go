package train

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph test
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// survivalReference is the survival block of the transformers + PEFT
// fixture (model/testdata/qwen3-parity/reference.json).
type survivalReference struct {
	Survival struct {
		Logits  [][]float32 `json:"logits"`
		T       []int32     `json:"t"`
		B       []int32     `json:"b"`
		MeanNLL float64     `json:"mean_nll"`
	} `json:"survival"`
}

func loadSurvivalReference(t *testing.T) survivalReference {
	t.Helper()
	raw, err := os.ReadFile("testdata/survival_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref survivalReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// TestSurvivalLossFixture reproduces survival.mean_nll of the PyTorch
// reference to 1e-6, with the reference's six edges laid out as rows of a
// padded [R, K] batch, and checks that padding gets exactly zero gradient.
func TestSurvivalLossFixture(t *testing.T) {
	ref := loadSurvivalReference(t).Survival
	n, bins := len(ref.Logits), len(ref.Logits[0])
	const k = 4 // slots per row: 6 edges in 2 rows of 4, 2 padding slots
	rows := (n + k - 1) / k
	logits := make([]float32, rows*k*bins)
	tt := make([]int32, rows*k)
	bb := make([]int32, rows*k)
	mask := make([]float32, rows*k)
	for i := range ref.Logits {
		copy(logits[i*bins:], ref.Logits[i])
		tt[i], bb[i], mask[i] = ref.T[i], ref.B[i], 1
	}
	for i := n; i < rows*k; i++ { // padding: absurd logits and labels
		for j := 0; j < bins; j++ {
			logits[i*bins+j] = 1e4 * float32(j%2)
		}
		tt[i], bb[i] = 7, -3
	}
	exec, err := NewExec(testBackend(t), func(l, t, b, m *Node) (*Node, *Node) {
		loss := SurvivalLoss(l, t, b, m)
		return loss, Gradient(loss, l)[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(logits, rows, k, bins),
		tensors.FromFlatDataAndDimensions(tt, rows, k), tensors.FromFlatDataAndDimensions(bb, rows, k),
		tensors.FromFlatDataAndDimensions(mask, rows, k))
	if err != nil {
		t.Fatal(err)
	}
	loss := tensors.MustCopyFlatData[float32](outs[0])[0]
	if d := math.Abs(float64(loss) - ref.MeanNLL); d > 1e-6 {
		t.Errorf("mean NLL %.9f, PyTorch reference %.9f (|Δ| = %.2g > 1e-6)", loss, ref.MeanNLL, d)
	}
	grad := tensors.MustCopyFlatData[float32](outs[1])
	for i := n * bins; i < len(grad); i++ {
		if grad[i] != 0 {
			t.Fatalf("padding slot gradient[%d] = %g, want exactly 0", i, grad[i])
		}
	}
	for i := 0; i < n*bins; i++ {
		if grad[i] == 0 {
			t.Errorf("real slot gradient[%d] is 0", i)
		}
	}
}
