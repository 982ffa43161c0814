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

// TestSiblingRankLoss: on one parent with three edits (solved in 1, solved
// in 2, never), the term is lower when the model's probability of a
// solve within b orders the edits as their labels do than when it reverses
// them; it matches softplus over the three ordered pairs computed by hand;
// padding slots get exactly zero gradient.
func TestSiblingRankLoss(t *testing.T) {
	const k, bins = 4, 4 // D = 3; b = 3 for every edit
	exec, err := NewExec(testBackend(t), func(l, tt, bb, m *Node) (*Node, *Node) {
		loss := SiblingRankLoss(l, tt, bb, m)
		return loss, Gradient(loss, l)[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	run := func(ps [3][bins]float64) (float32, []float32) {
		logits := make([]float32, k*bins)
		for i, p := range ps {
			for j, v := range p {
				logits[i*bins+j] = float32(math.Log(v))
			}
		}
		for j := range bins { // the padding slot: absurd logits
			logits[3*bins+j] = 1e4 * float32(j%2)
		}
		outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(logits, 1, k, bins),
			tensors.FromFlatDataAndDimensions([]int32{1, 2, 0, 5}, 1, k), tensors.FromFlatDataAndDimensions([]int32{3, 3, 3, 0}, 1, k),
			tensors.FromFlatDataAndDimensions([]float32{1, 1, 1, 0}, 1, k))
		if err != nil {
			t.Fatal(err)
		}
		return tensors.MustCopyFlatData[float32](outs[0])[0], tensors.MustCopyFlatData[float32](outs[1])
	}
	good := [3][bins]float64{{0.7, 0.1, 0.1, 0.1}, {0.2, 0.3, 0.1, 0.4}, {0.05, 0.05, 0.1, 0.8}}
	bad := [3][bins]float64{good[2], good[1], good[0]}
	lg, grad := run(good)
	lb, _ := run(bad)
	if !(lg < lb) {
		t.Errorf("ordered %v, reversed %v: want the ordered model's term lower", lg, lb)
	}
	z := func(p [bins]float64) float64 { return math.Log(p[0] + p[1] + p[2]) } // P(t ≤ 3)
	sp := func(x float64) float64 { return math.Log1p(math.Exp(x)) }
	want := (sp(z(good[1])-z(good[0])) + sp(z(good[2])-z(good[0])) + sp(z(good[2])-z(good[1]))) / 3
	if math.Abs(float64(lg)-want) > 1e-5 {
		t.Errorf("term %v, by hand %v", lg, want)
	}
	for j := 3 * bins; j < len(grad); j++ {
		if grad[j] != 0 {
			t.Fatalf("padding gradient[%d] = %g", j, grad[j])
		}
	}
}
