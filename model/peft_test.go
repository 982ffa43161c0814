package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loraModel(t *testing.T) *Model {
	t.Helper()
	m, err := Load(tinyDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadAdapter(adapterDir); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoRAParity(t *testing.T) {
	ref := loadReference(t)
	m := loraModel(t)
	if got := m.Opts.LoRA; got.Rank != 8 || got.Alpha != 16 || got.Scaling() != 2 || len(got.Targets) != 4 {
		t.Fatalf("adapter config %+v", got)
	}
	be := testBackend(t)
	got, err := m.HiddenStates(be, ref.InputIDs, ref.AttentionMask)
	if err != nil {
		t.Fatal(err)
	}
	e := maxRelErr(t, got, ref.LoRALastHidden, ref.AttentionMask)
	if e > 1e-4 {
		t.Fatalf("LoRA last_hidden_state relative error %.3g > 1e-4", e)
	}
	t.Logf("LoRA last_hidden_state max relative error %.3g", e)
	// The adapter changes the output: the base reference must not match.
	if eb := maxRelErr(t, got, ref.LastHidden, ref.AttentionMask); eb < 1e-3 {
		t.Fatalf("adapter had no effect (error vs base %.3g)", eb)
	}

	// Save, reload into a fresh model: identical outputs.
	dir := t.TempDir()
	if err := m.SaveAdapter(dir); err != nil {
		t.Fatal(err)
	}
	m2 := loraModel(t)
	if err := m2.LoadAdapter(dir); err != nil {
		t.Fatal(err)
	}
	got2, err := m2.HiddenStates(be, ref.InputIDs, ref.AttentionMask)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		for j := range got[i] {
			for k := range got[i][j] {
				if got[i][j][k] != got2[i][j][k] {
					t.Fatalf("reloaded adapter differs at [%d][%d][%d]: %g vs %g", i, j, k, got[i][j][k], got2[i][j][k])
				}
			}
		}
	}
	// Keys are PEFT's.
	st, err := OpenSafetensors(filepath.Join(dir, AdapterWeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	orig, err := OpenSafetensors(filepath.Join(adapterDir, AdapterWeightsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	if a, b := strings.Join(st.Names(), ","), strings.Join(orig.Names(), ","); a != b {
		t.Errorf("saved keys\n%s\nwant\n%s", a, b)
	}

	// Merge into the base: same outputs within float32 rounding.
	if err := m.MergeLoRA(); err != nil {
		t.Fatal(err)
	}
	merged, err := m.HiddenStates(be, ref.InputIDs, ref.AttentionMask)
	if err != nil {
		t.Fatal(err)
	}
	if e := maxRelErr(t, merged, ref.LoRALastHidden, ref.AttentionMask); e > 1e-4 {
		t.Errorf("merged model relative error %.3g > 1e-4", e)
	}
	if m.Opts.LoRA != nil {
		t.Error("LoRA config kept after merge")
	}
}

func TestParseAdapterConfig(t *testing.T) {
	tests := []struct {
		name, json, wantErr string
	}{
		{"ok", `{"peft_type":"LORA","r":4,"lora_alpha":8,"target_modules":["v_proj","q_proj"]}`, ""},
		{"dora", `{"r":4,"lora_alpha":8,"target_modules":["q_proj"],"use_dora":true}`, "dora"},
		{"regex targets", `{"r":4,"lora_alpha":8,"target_modules":".*proj"}`, "list"},
		{"bad module", `{"r":4,"lora_alpha":8,"target_modules":["lm_head"]}`, "unknown target"},
		{"zero rank", `{"r":0,"lora_alpha":8,"target_modules":["q_proj"]}`, "rank"},
		{"prefix tuning", `{"peft_type":"PREFIX_TUNING"}`, "LORA"},
		{"layers subset", `{"r":4,"lora_alpha":8,"target_modules":["q_proj"],"layers_to_transform":[0]}`, "layers_to_transform"},
		{"not json", `{`, "adapter config"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseAdapterConfig([]byte(tc.json))
			if tc.wantErr == "" {
				if err != nil || l.Rank != 4 || l.Scaling() != 2 || strings.Join(l.Targets, ",") != "q_proj,v_proj" {
					t.Fatalf("got %+v, %v", l, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadAdapterErrors(t *testing.T) {
	m, err := Load(tinyDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// An adapter for fewer targets than its weights hold: unexpected tensors.
	dir := t.TempDir()
	data, _ := os.ReadFile(filepath.Join(adapterDir, AdapterWeightsFile))
	_ = os.WriteFile(filepath.Join(dir, AdapterWeightsFile), data, 0o644)
	_ = os.WriteFile(filepath.Join(dir, AdapterConfigFile), []byte(`{"r":8,"lora_alpha":16,"target_modules":["q_proj"]}`), 0o644)
	if err := m.LoadAdapter(dir); err == nil || !strings.Contains(err.Error(), "unexpected") {
		t.Errorf("err = %v, want unexpected tensor", err)
	}
	// More targets than the weights hold: missing tensors.
	_ = os.WriteFile(filepath.Join(dir, AdapterConfigFile), []byte(`{"r":8,"lora_alpha":16,"target_modules":["q_proj","k_proj","v_proj","o_proj","up_proj"]}`), 0o644)
	if err := m.LoadAdapter(dir); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("err = %v, want missing tensors", err)
	}
	if m.Opts.LoRA != nil {
		t.Error("failed loads changed the LoRA config")
	}
}
