package model

import (
	"encoding/json"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/gomlx/gomlx/backends"
)

var (
	backendOnce sync.Once
	backendVal  backends.Backend
	backendErr  error
)

// testBackend is go:ops_sequential (offline, CPU) unless GOMLX_BACKEND is set.
func testBackend(t testing.TB) backends.Backend {
	t.Helper()
	backendOnce.Do(func() {
		spec := os.Getenv("GOMLX_BACKEND")
		if spec == "" {
			spec = DefaultBackend
		}
		backendVal, backendErr = NewBackend(spec)
	})
	if backendErr != nil {
		t.Fatalf("backend: %v", backendErr)
	}
	return backendVal
}

// reference is testdata/qwen3-parity/reference.json, written by transformers.
type reference struct {
	InputIDs       [][]int32     `json:"input_ids"`
	AttentionMask  [][]int32     `json:"attention_mask"`
	LastHidden     [][][]float64 `json:"last_hidden_state"`
	LoRALastHidden [][][]float64 `json:"lora_last_hidden_state"`
	Survival       struct {
		Logits  [][]float32 `json:"logits"`
		T       []int32     `json:"t"`
		B       []int32     `json:"b"`
		MeanNLL float64     `json:"mean_nll"`
	} `json:"survival"`
}

const (
	tinyDir    = "testdata/qwen3-parity/qwen3-tiny"
	adapterDir = "testdata/qwen3-parity/lora-adapter"
)

func loadReference(t testing.TB) reference {
	t.Helper()
	data, err := os.ReadFile("testdata/qwen3-parity/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// maxRelErr compares got with want on the positions where mask is 1:
// max |got−want| / max(|want|) per position vector.
func maxRelErr(t testing.TB, got [][][]float32, want [][][]float64, mask [][]int32) float64 {
	t.Helper()
	worst := 0.0
	for i := range want {
		for j := range want[i] {
			if mask[i][j] == 0 {
				continue
			}
			var diff, norm float64
			for k := range want[i][j] {
				diff = math.Max(diff, math.Abs(float64(got[i][j][k])-want[i][j][k]))
				norm = math.Max(norm, math.Abs(want[i][j][k]))
			}
			worst = math.Max(worst, diff/norm)
		}
	}
	return worst
}
