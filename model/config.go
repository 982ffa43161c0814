// Package model is triage's priority model: a Qwen3 decoder written in GoMLX,
// LoRA adapters (PEFT-compatible), a safetensors reader and writer, the
// priority head over D+1 solve-distance bins, the discrete-survival loss,
// serialization of an edge into tokens, packed sibling scoring, and backend
// selection.
//
// Exported functions return errors; graph-building helpers panic, like all of
// GoMLX, and are only called where a graph is built inside a recovering Exec.
//
// Imports: only its own subpackages, model/priority and model/tokenizer.
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Config mirrors the fields of a Hugging Face Qwen3 config.json that the
// decoder needs. Unknown fields are ignored.
type Config struct {
	Architectures         []string `json:"architectures,omitempty"`
	ModelType             string   `json:"model_type"`
	HiddenSize            int      `json:"hidden_size"`
	IntermediateSize      int      `json:"intermediate_size"`
	NumHiddenLayers       int      `json:"num_hidden_layers"`
	NumAttentionHeads     int      `json:"num_attention_heads"`
	NumKeyValueHeads      int      `json:"num_key_value_heads"`
	HeadDim               int      `json:"head_dim"`
	VocabSize             int      `json:"vocab_size"`
	RMSNormEps            float64  `json:"rms_norm_eps"`
	RopeTheta             float64  `json:"rope_theta,omitempty"`
	HiddenAct             string   `json:"hidden_act"`
	AttentionBias         bool     `json:"attention_bias"`
	TieWordEmbeddings     bool     `json:"tie_word_embeddings"`
	MaxPositionEmbeddings int      `json:"max_position_embeddings"`
	// RopeParameters is the transformers ≥ 4.56 form of rope_theta.
	RopeParameters *RopeParameters `json:"rope_parameters,omitempty"`
}

// RopeParameters is the "rope_parameters" block of newer config.json files.
type RopeParameters struct {
	RopeTheta float64 `json:"rope_theta"`
	RopeType  string  `json:"rope_type"`
}

// Theta returns the RoPE base: rope_parameters.rope_theta, else rope_theta,
// else Qwen3's default 1e6.
func (c Config) Theta() float64 {
	if c.RopeParameters != nil && c.RopeParameters.RopeTheta > 0 {
		return c.RopeParameters.RopeTheta
	}
	if c.RopeTheta > 0 {
		return c.RopeTheta
	}
	return 1e6
}

// Validate reports the first inconsistency of c, naming the field.
func (c Config) Validate() error {
	if c.ModelType != "" && c.ModelType != "qwen3" {
		return fmt.Errorf("model config: model_type %q is not qwen3", c.ModelType)
	}
	pos := []struct {
		name string
		v    int
	}{
		{"hidden_size", c.HiddenSize}, {"intermediate_size", c.IntermediateSize},
		{"num_hidden_layers", c.NumHiddenLayers}, {"num_attention_heads", c.NumAttentionHeads},
		{"num_key_value_heads", c.NumKeyValueHeads}, {"head_dim", c.HeadDim}, {"vocab_size", c.VocabSize},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return fmt.Errorf("model config: %s = %d, want > 0", p.name, p.v)
		}
	}
	if c.NumAttentionHeads%c.NumKeyValueHeads != 0 {
		return fmt.Errorf("model config: num_attention_heads %d not divisible by num_key_value_heads %d",
			c.NumAttentionHeads, c.NumKeyValueHeads)
	}
	if c.HeadDim%2 != 0 {
		return fmt.Errorf("model config: head_dim %d must be even for RoPE", c.HeadDim)
	}
	if c.RMSNormEps <= 0 {
		return fmt.Errorf("model config: rms_norm_eps = %g, want > 0", c.RMSNormEps)
	}
	if c.HiddenAct != "" && c.HiddenAct != "silu" {
		return fmt.Errorf("model config: hidden_act %q unsupported (want silu)", c.HiddenAct)
	}
	if c.AttentionBias {
		return errors.New("model config: attention_bias = true is unsupported (Qwen3 has none)")
	}
	if c.RopeParameters != nil && c.RopeParameters.RopeType != "" && c.RopeParameters.RopeType != "default" {
		return fmt.Errorf("model config: rope_type %q unsupported (want default)", c.RopeParameters.RopeType)
	}
	return nil
}

// ParseConfig decodes and validates a config.json document.
func ParseConfig(data []byte) (Config, error) {
	c := Config{RMSNormEps: 1e-6, HiddenAct: "silu"}
	if err := json.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("model config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// LoadConfig reads and validates a config.json file.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("model config: %w", err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Qwen3_0_6B returns the architecture of Qwen3-0.6B(-Base).
func Qwen3_0_6B() Config {
	return Config{
		Architectures: []string{"Qwen3ForCausalLM"}, ModelType: "qwen3",
		HiddenSize: 1024, IntermediateSize: 3072, NumHiddenLayers: 28,
		NumAttentionHeads: 16, NumKeyValueHeads: 8, HeadDim: 128, VocabSize: 151936,
		RMSNormEps: 1e-6, RopeTheta: 1e6, HiddenAct: "silu", TieWordEmbeddings: true,
		MaxPositionEmbeddings: 32768,
	}
}

// SmallConfig returns the small Qwen3-shaped architecture used for the
// embedded default checkpoint and CPU benchmarks: Qwen3's vocabulary (so the
// real tokenizer applies), 2 layers of width 64.
func SmallConfig() Config {
	return Config{
		Architectures: []string{"Qwen3Model"}, ModelType: "qwen3",
		HiddenSize: 64, IntermediateSize: 128, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 16, VocabSize: 151936,
		RMSNormEps: 1e-6, RopeTheta: 1e6, HiddenAct: "silu", TieWordEmbeddings: true,
		MaxPositionEmbeddings: 4096,
	}
}
