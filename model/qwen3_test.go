package model

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"strings"
	"testing"
)

func TestBaseParity(t *testing.T) {
	ref := loadReference(t)
	m, err := Load(tinyDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.hfPrefix != "" {
		t.Errorf("prefix %q, want none (Qwen3Model)", m.hfPrefix)
	}
	got, err := m.HiddenStates(testBackend(t), ref.InputIDs, ref.AttentionMask)
	if err != nil {
		t.Fatal(err)
	}
	if e := maxRelErr(t, got, ref.LastHidden, ref.AttentionMask); e > 1e-4 {
		t.Errorf("base last_hidden_state relative error %.3g > 1e-4", e)
	} else {
		t.Logf("base last_hidden_state max relative error %.3g", e)
	}
}

func TestLoadErrors(t *testing.T) {
	cfg, err := LoadConfig(tinyDir + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := cfg
	bad.HiddenSize = 32 // shapes no longer match the file
	m, err := New(bad, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadBaseWeights(tinyDir); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("mismatched config: err = %v, want a shape error", err)
	}
	more := cfg
	more.NumHiddenLayers = 3
	m, _ = New(more, Options{})
	if err := m.LoadBaseWeights(tinyDir); err == nil || !strings.Contains(err.Error(), "missing") ||
		!strings.Contains(err.Error(), "layers.2.") {
		t.Errorf("extra layer: err = %v, want missing layers.2.*", err)
	}
	fewer := cfg
	fewer.NumHiddenLayers = 1
	m, _ = New(fewer, Options{})
	if err := m.LoadBaseWeights(tinyDir); err == nil || !strings.Contains(err.Error(), "unexpected") {
		t.Errorf("fewer layers: err = %v, want unexpected tensors", err)
	}
	if _, err := Load(t.TempDir(), Options{}); err == nil {
		t.Error("empty folder loaded")
	}
}

func TestBFloat16(t *testing.T) {
	ref := loadReference(t)
	m, err := Load(tinyDir, Options{DType: dtypes.BFloat16})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadAdapter(adapterDir); err != nil {
		t.Fatal(err)
	}
	got, err := m.HiddenStates(testBackend(t), ref.InputIDs, ref.AttentionMask)
	if err != nil {
		t.Fatal(err)
	}
	// bf16 keeps 8 bits of mantissa: a few percent of the largest component.
	if e := maxRelErr(t, got, ref.LoRALastHidden, ref.AttentionMask); e > 0.1 {
		t.Errorf("bf16 relative error %.3g > 0.1", e)
	} else {
		t.Logf("bf16 relative error %.3g", e)
	}
}
