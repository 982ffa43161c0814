package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// PEFT file names inside an adapter folder.
const (
	AdapterConfigFile  = "adapter_config.json"
	AdapterWeightsFile = "adapter_model.safetensors"
)

// peftConfig is the part of PEFT's adapter_config.json that triage reads.
type peftConfig struct {
	PeftType          string          `json:"peft_type"`
	R                 int             `json:"r"`
	LoraAlpha         float64         `json:"lora_alpha"`
	TargetModules     json.RawMessage `json:"target_modules"`
	UseRSLoRA         bool            `json:"use_rslora"`
	UseDoRA           bool            `json:"use_dora"`
	Bias              string          `json:"bias"`
	FanInFanOut       bool            `json:"fan_in_fan_out"`
	RankPattern       map[string]any  `json:"rank_pattern"`
	AlphaPattern      map[string]any  `json:"alpha_pattern"`
	LayersToTransform json.RawMessage `json:"layers_to_transform"`
	ModulesToSave     json.RawMessage `json:"modules_to_save"`
}

func isNull(m json.RawMessage) bool {
	s := strings.TrimSpace(string(m))
	return s == "" || s == "null"
}

// ParseAdapterConfig reads a PEFT adapter_config.json into a LoRAConfig,
// rejecting the PEFT features triage does not implement (DoRA, biases,
// per-module rank/alpha patterns, layer subsets, modules_to_save).
func ParseAdapterConfig(data []byte) (LoRAConfig, error) {
	var p peftConfig
	if err := json.Unmarshal(data, &p); err != nil {
		return LoRAConfig{}, fmt.Errorf("adapter config: %w", err)
	}
	switch {
	case p.PeftType != "" && p.PeftType != "LORA":
		return LoRAConfig{}, fmt.Errorf("adapter config: peft_type %q, want LORA", p.PeftType)
	case p.UseDoRA:
		return LoRAConfig{}, fmt.Errorf("adapter config: use_dora is unsupported")
	case p.Bias != "" && p.Bias != "none":
		return LoRAConfig{}, fmt.Errorf("adapter config: bias %q is unsupported", p.Bias)
	case p.FanInFanOut:
		return LoRAConfig{}, fmt.Errorf("adapter config: fan_in_fan_out is unsupported")
	case len(p.RankPattern) > 0 || len(p.AlphaPattern) > 0:
		return LoRAConfig{}, fmt.Errorf("adapter config: rank_pattern/alpha_pattern are unsupported")
	case !isNull(p.LayersToTransform):
		return LoRAConfig{}, fmt.Errorf("adapter config: layers_to_transform is unsupported")
	case !isNull(p.ModulesToSave):
		return LoRAConfig{}, fmt.Errorf("adapter config: modules_to_save is unsupported")
	}
	var targets []string
	if err := json.Unmarshal(p.TargetModules, &targets); err != nil {
		return LoRAConfig{}, fmt.Errorf("adapter config: target_modules must be a list of module names: %w", err)
	}
	sort.Strings(targets)
	l := LoRAConfig{Rank: p.R, Alpha: p.LoraAlpha, Targets: targets, RSLoRA: p.UseRSLoRA}
	if err := l.Validate(); err != nil {
		return LoRAConfig{}, fmt.Errorf("adapter config: %w", err)
	}
	return l, nil
}

// peftKey matches an adapter tensor name after "base_model.model." and the
// optional "model." prefix.
var peftKey = regexp.MustCompile(`^layers\.(\d+)\.(self_attn|mlp)\.([a-z_]+)\.lora_(A|B)\.weight$`)

// moduleGroup is the parent module of each LoRA target.
func moduleGroup(module string) string {
	if strings.HasSuffix(module, "_proj") && slices.Contains([]string{"q_proj", "k_proj", "v_proj", "o_proj"}, module) {
		return "self_attn"
	}
	return "mlp"
}

// loraKeys lists, for every layer and target, the dotted variable keys
// (without BaseScope) of A and B and their shapes.
func (m *Model) loraKeys(l LoRAConfig) map[string][]int {
	shapes := m.Config.baseShapes()
	out := map[string][]int{}
	for layer := 0; layer < m.Config.NumHiddenLayers; layer++ {
		for _, t := range l.Targets {
			mod := "layers." + strconv.Itoa(layer) + "." + moduleGroup(t) + "." + t
			w := shapes[mod+".weight"] // [out, in]
			out[mod+".lora_A.weight"] = []int{l.Rank, w[1]}
			out[mod+".lora_B.weight"] = []int{w[0], l.Rank}
		}
	}
	return out
}

// LoadAdapter loads a PEFT LoRA adapter folder (adapter_config.json,
// adapter_model.safetensors) into m, replacing its LoRA configuration. Keys
// are PEFT's: base_model.model.[model.]layers.N.self_attn.q_proj.lora_A.weight.
// The adapter weights become trainable float32 variables.
func (m *Model) LoadAdapter(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, AdapterConfigFile))
	if err != nil {
		return fmt.Errorf("adapter: %w", err)
	}
	l, err := ParseAdapterConfig(data)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	st, err := OpenSafetensors(filepath.Join(dir, AdapterWeightsFile))
	if err != nil {
		return fmt.Errorf("adapter: %w", err)
	}
	defer st.Close()
	want := m.loraKeys(l)
	keys := map[string]string{} // file name → variable key
	for _, name := range st.Names() {
		key, ok := strings.CutPrefix(name, "base_model.model.")
		if ok {
			key = strings.TrimPrefix(key, "model.")
		}
		shape, known := want[key]
		if !ok || !known || !peftKey.MatchString(key) {
			return fmt.Errorf("adapter: %s: unexpected tensor %q for targets %v", dir, name, l.Targets)
		}
		info, _ := st.Info(name)
		if !slices.Equal(info.Shape, shape) {
			return fmt.Errorf("adapter: %s: tensor %q has shape %v, want %v", dir, name, info.Shape, shape)
		}
		keys[name] = key
	}
	got := map[string]bool{}
	for _, k := range keys {
		got[k] = true
	}
	var missing []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("adapter: %s: %d missing tensors, e.g. %s", dir, len(missing), strings.Join(head(missing, 5), ", "))
	}
	// Validated: now load (a failure below is an I/O or conversion error).
	for name, key := range keys {
		t, err := st.Tensor(name)
		if err != nil {
			return fmt.Errorf("adapter: %w", err)
		}
		if t, err = convertTensor(t, dtypes.Float32); err != nil {
			return fmt.Errorf("adapter: tensor %q: %w", name, err)
		}
		if err := m.setVariable(BaseScope+"."+key, t, true); err != nil {
			return fmt.Errorf("adapter: %w", err)
		}
	}
	m.Opts.LoRA = &l
	return nil
}

// SaveAdapter writes m's LoRA adapter as a PEFT folder that PEFT's
// PeftModel.from_pretrained loads onto the same base.
func (m *Model) SaveAdapter(dir string) error {
	if m.Opts.LoRA == nil {
		return fmt.Errorf("adapter: model has no LoRA")
	}
	l := *m.Opts.LoRA
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("adapter: %w", err)
	}
	ts := map[string]*tensors.Tensor{}
	for key := range m.loraKeys(l) {
		t, err := m.variableValue(BaseScope + "." + key)
		if err != nil {
			return fmt.Errorf("adapter: %w (run the model once, or load an adapter, before saving)", err)
		}
		ts["base_model.model."+m.hfPrefix+key] = t
	}
	cfg := map[string]any{
		"peft_type": "LORA", "r": l.Rank, "lora_alpha": l.Alpha, "target_modules": l.Targets,
		"lora_dropout": 0.0, "bias": "none", "fan_in_fan_out": false, "use_rslora": l.RSLoRA,
		"use_dora": false, "inference_mode": true, "task_type": nil, "base_model_name_or_path": nil,
		"init_lora_weights": true, "modules_to_save": nil, "layers_to_transform": nil,
		"layers_pattern": nil, "rank_pattern": map[string]any{}, "alpha_pattern": map[string]any{},
		"revision": nil,
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("adapter: %w", err)
	}
	if err := WriteSafetensorsFile(filepath.Join(dir, AdapterWeightsFile), ts, map[string]string{"format": "pt"}); err != nil {
		return fmt.Errorf("adapter: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, AdapterConfigFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("adapter: %w", err)
	}
	return nil
}

// MergeLoRA folds every adapter into its base weight, W ← W + s·B·A (float32
// math on the host, stored back in the model dtype), deletes the adapter
// variables and drops the LoRA configuration: inference then runs the plain
// decoder. Execs built before the merge must be rebuilt.
func (m *Model) MergeLoRA() error {
	if m.Opts.LoRA == nil {
		return fmt.Errorf("merge: model has no LoRA")
	}
	l := *m.Opts.LoRA
	s := float32(l.Scaling())
	for layer := 0; layer < m.Config.NumHiddenLayers; layer++ {
		for _, t := range l.Targets {
			mod := BaseScope + ".layers." + strconv.Itoa(layer) + "." + moduleGroup(t) + "." + t
			w, err := m.variableValue(mod + ".weight")
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			a, err := m.variableValue(mod + ".lora_A.weight")
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			b, err := m.variableValue(mod + ".lora_B.weight")
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			wf, err := convertTensor(w, dtypes.Float32)
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			wd, err1 := tensors.CopyFlatData[float32](wf)
			ad, err2 := tensors.CopyFlatData[float32](a)
			bd, err3 := tensors.CopyFlatData[float32](b)
			if err := errors.Join(err1, err2, err3); err != nil {
				return fmt.Errorf("merge: %s: %w", mod, err)
			}
			out, in, r := w.Shape().Dimensions[0], w.Shape().Dimensions[1], l.Rank
			for o := 0; o < out; o++ {
				row := wd[o*in : (o+1)*in]
				for k := 0; k < r; k++ {
					c := s * bd[o*r+k]
					if c == 0 {
						continue
					}
					arow := ad[k*in : (k+1)*in]
					for i := range row {
						row[i] += c * arow[i]
					}
				}
			}
			merged, err := convertTensor(tensors.FromFlatDataAndDimensions(wd, out, in), m.Opts.DType)
			if err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			if err := m.setVariable(mod+".weight", merged, false); err != nil {
				return fmt.Errorf("merge: %w", err)
			}
			for _, ab := range []string{"lora_A", "lora_B"} {
				c, _ := m.scopeOf(mod + "." + ab + ".weight")
				if err := c.DeleteVariable(c.Scope(), "weight"); err != nil {
					return fmt.Errorf("merge: %w", err)
				}
			}
		}
	}
	m.Opts.LoRA = nil
	return nil
}
