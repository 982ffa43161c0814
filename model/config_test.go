package model

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	c, err := LoadConfig(tinyDir + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.HiddenSize != 64 || c.NumKeyValueHeads != 2 || c.HeadDim != 16 || c.Theta() != 1e6 || !c.TieWordEmbeddings {
		t.Errorf("parsed %+v", c)
	}
	old, err := ParseConfig([]byte(`{"model_type":"qwen3","hidden_size":8,"intermediate_size":16,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"vocab_size":10,"rope_theta":10000}`))
	if err != nil || old.Theta() != 10000 || old.RMSNormEps != 1e-6 {
		t.Errorf("old-style config: %+v %v", old, err)
	}
	tests := []struct{ name, edit, wantErr string }{
		{"gqa", `"num_key_value_heads":3`, "divisible"},
		{"llama", `"model_type":"llama"`, "qwen3"},
		{"odd head", `"head_dim":5`, "even"},
		{"zero layers", `"num_hidden_layers":0`, "num_hidden_layers"},
		{"gelu", `"hidden_act":"gelu"`, "silu"},
		{"bias", `"attention_bias":true`, "attention_bias"},
		{"yarn", `"rope_parameters":{"rope_type":"yarn","rope_theta":1}`, "rope_type"},
	}
	base := `{"model_type":"qwen3","hidden_size":8,"intermediate_size":16,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"vocab_size":10`
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(base + "," + tc.edit + "}"))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
	if _, err := ParseConfig([]byte(`{`)); err == nil {
		t.Error("bad JSON accepted")
	}
	for _, c := range []Config{Qwen3_0_6B(), SmallConfig()} {
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestBackendConfig(t *testing.T) {
	tests := []struct{ spec, want, wantErr string }{
		{"", "go:ops_sequential", ""},
		{"go", "go:ops_sequential", ""},
		{"go:parallelism=4", "go:parallelism=4", ""},
		{"xla", "", "name the plugin"},
		{"xla:/nonexistent/pjrt.so", "", "plugin"},
		{"tpu", "", "want go"},
	}
	for _, tc := range tests {
		got, err := BackendConfig(tc.spec)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("BackendConfig(%q) err = %v, want %q", tc.spec, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("BackendConfig(%q) = %q, %v; want %q", tc.spec, got, err, tc.want)
		}
	}
	if xlaCompiled {
		if got, err := BackendConfig("xla:cuda"); err != nil || got != "xla:cuda" {
			t.Errorf("xla:cuda: %q %v", got, err)
		}
	}
	t.Setenv("GOMLX_NO_AUTO_INSTALL", "")
	b, err := NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(b.Name()+b.Description()), "go") {
		t.Errorf("backend %q %q", b.Name(), b.Description())
	}
}
