package model

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// Load reads a Hugging Face Qwen3 checkpoint folder (config.json and
// model.safetensors, or a sharded model.safetensors.index.json) into a new
// Model. Keys may carry the "model." prefix (Qwen3ForCausalLM) or not
// (Qwen3Model); lm_head.weight is ignored (tied or not, the priority model
// reads hidden states only).
func Load(dir string, opts Options) (*Model, error) {
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, err
	}
	m, err := New(cfg, opts)
	if err != nil {
		return nil, err
	}
	if err := m.LoadBaseWeights(dir); err != nil {
		return nil, err
	}
	return m, nil
}

// baseShapes lists every base weight (HF key without prefix) and its shape.
func (c Config) baseShapes() map[string][]int {
	s := map[string][]int{
		"embed_tokens.weight": {c.VocabSize, c.HiddenSize},
		"norm.weight":         {c.HiddenSize},
	}
	q, kv := c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	for l := 0; l < c.NumHiddenLayers; l++ {
		p := "layers." + strconv.Itoa(l) + "."
		s[p+"input_layernorm.weight"] = []int{c.HiddenSize}
		s[p+"post_attention_layernorm.weight"] = []int{c.HiddenSize}
		s[p+"self_attn.q_proj.weight"] = []int{q, c.HiddenSize}
		s[p+"self_attn.k_proj.weight"] = []int{kv, c.HiddenSize}
		s[p+"self_attn.v_proj.weight"] = []int{kv, c.HiddenSize}
		s[p+"self_attn.o_proj.weight"] = []int{c.HiddenSize, q}
		s[p+"self_attn.q_norm.weight"] = []int{c.HeadDim}
		s[p+"self_attn.k_norm.weight"] = []int{c.HeadDim}
		s[p+"mlp.gate_proj.weight"] = []int{c.IntermediateSize, c.HiddenSize}
		s[p+"mlp.up_proj.weight"] = []int{c.IntermediateSize, c.HiddenSize}
		s[p+"mlp.down_proj.weight"] = []int{c.HiddenSize, c.IntermediateSize}
	}
	return s
}

// weightFiles returns the safetensors files of a checkpoint folder.
func weightFiles(dir string) ([]string, error) {
	single := filepath.Join(dir, "model.safetensors")
	if _, err := os.Stat(single); err == nil {
		return []string{single}, nil
	}
	idx := filepath.Join(dir, "model.safetensors.index.json")
	data, err := os.ReadFile(idx)
	if err != nil {
		return nil, fmt.Errorf("model: %s has neither model.safetensors nor a readable index: %w", dir, err)
	}
	var index struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(data, &index); err != nil {
		return nil, fmt.Errorf("model: %s: %w", idx, err)
	}
	var files []string
	for _, f := range index.WeightMap {
		if strings.Contains(f, "/") || strings.Contains(f, "..") {
			return nil, fmt.Errorf("model: %s: shard name %q is not a plain file name", idx, f)
		}
		p := filepath.Join(dir, f)
		if !slices.Contains(files, p) {
			files = append(files, p)
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("model: %s: empty weight_map", idx)
	}
	return files, nil
}

// LoadBaseWeights loads every decoder weight from the safetensors file(s) in
// dir, converting to the model dtype. Missing, unexpected or misshapen
// tensors are errors that name them.
func (m *Model) LoadBaseWeights(dir string) error {
	files, err := weightFiles(dir)
	if err != nil {
		return err
	}
	want := m.Config.baseShapes()
	found := map[string]bool{}
	prefix := ""
	var unexpected []string
	for fi, path := range files {
		st, err := OpenSafetensors(path)
		if err != nil {
			return fmt.Errorf("model: %w", err)
		}
		names := st.Names()
		if fi == 0 && slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "model.") }) {
			prefix = "model."
		}
		for _, name := range names {
			if name == "lm_head.weight" {
				continue
			}
			key, ok := strings.CutPrefix(name, prefix)
			shape, known := want[key]
			if !ok || !known {
				unexpected = append(unexpected, name)
				continue
			}
			info, _ := st.Info(name)
			if !slices.Equal(info.Shape, shape) {
				st.Close()
				return fmt.Errorf("model: %s: tensor %q has shape %v, config wants %v", path, name, info.Shape, shape)
			}
			t, err := st.Tensor(name)
			if err != nil {
				st.Close()
				return fmt.Errorf("model: %w", err)
			}
			t, err = convertTensor(t, m.Opts.DType)
			if err != nil {
				st.Close()
				return fmt.Errorf("model: tensor %q: %w", name, err)
			}
			if err := m.setVariable(BaseScope+"."+key, t, false); err != nil {
				st.Close()
				return err
			}
			found[key] = true
		}
		if err := st.Close(); err != nil {
			return err
		}
	}
	if len(unexpected) > 0 {
		sort.Strings(unexpected)
		return fmt.Errorf("model: %s: %d unexpected tensors, e.g. %s", dir, len(unexpected), strings.Join(head(unexpected, 5), ", "))
	}
	var missing []string
	for k := range want {
		if !found[k] {
			missing = append(missing, prefix+k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("model: %s: %d missing tensors, e.g. %s", dir, len(missing), strings.Join(head(missing, 5), ", "))
	}
	m.hfPrefix = prefix
	return nil
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// scopeOf maps a dotted key ("model.layers.0.self_attn.q_proj.weight") to
// the context at its scope and the variable name ("weight").
func (m *Model) scopeOf(key string) (*mlctx.Context, string) { return ScopeOf(m.mctx, key) }

// ScopeOf maps a dotted key ("head.dense_0.weight") to the context of mctx
// at its scope and the variable name ("weight").
func ScopeOf(mctx *mlctx.Context, key string) (*mlctx.Context, string) {
	parts := strings.Split(key, ".")
	c := mctx
	for _, p := range parts[:len(parts)-1] {
		c = c.In(p)
	}
	return c, parts[len(parts)-1]
}

// setVariable stores t as the variable at the dotted key, creating it or
// replacing its value (shapes must agree).
func (m *Model) setVariable(key string, t *tensors.Tensor, trainable bool) error {
	return SetVariable(m.mctx, key, t, trainable)
}

// SetVariable stores t as the variable of mctx at the dotted key, creating
// it or replacing its value (shapes and dtypes must agree).
func SetVariable(mctx *mlctx.Context, key string, t *tensors.Tensor, trainable bool) error {
	c, name := ScopeOf(mctx, key)
	if v := c.GetVariableByScopeAndName(c.Scope(), name); v != nil {
		if !v.Shape().Equal(t.Shape()) {
			return fmt.Errorf("model: variable %s has shape %s, value %s", key, v.Shape(), t.Shape())
		}
		if err := v.SetValue(t); err != nil {
			return fmt.Errorf("model: variable %s: %w", key, err)
		}
		v.SetTrainable(trainable)
		return nil
	}
	// A new variable: created in a checked, non-reusing context, which
	// cannot collide since none exists under this name.

	c.VariableWithValue(name, t).SetTrainable(trainable)
	return nil
}

// variableValue returns the value of the variable at the dotted key.
func (m *Model) variableValue(key string) (*tensors.Tensor, error) {
	c, name := m.scopeOf(key)
	v := c.GetVariableByScopeAndName(c.Scope(), name)
	if v == nil {
		return nil, fmt.Errorf("model: no variable %s", key)
	}
	t, err := v.Value()
	if err != nil {
		return nil, fmt.Errorf("model: variable %s: %w", key, err)
	}
	return t, nil
}

// convertTensor converts between float32 and bfloat16 on the host.
func convertTensor(t *tensors.Tensor, to dtypes.DType) (*tensors.Tensor, error) {
	from := t.DType()
	if from == to {
		return t, nil
	}
	out := tensors.FromShape(shapes.Make(to, t.Shape().Dimensions...))
	var err, inner error
	switch {
	case from == dtypes.Float32 && to == dtypes.BFloat16:
		err = tensors.ConstFlatData(t, func(src []float32) {
			inner = tensors.MutableFlatData(out, func(dst []bfloat16.BFloat16) {
				for i, v := range src {
					dst[i] = bfloat16.FromFloat32(v)
				}
			})
		})
	case from == dtypes.BFloat16 && to == dtypes.Float32:
		err = tensors.ConstFlatData(t, func(src []bfloat16.BFloat16) {
			inner = tensors.MutableFlatData(out, func(dst []float32) {
				for i, v := range src {
					dst[i] = v.Float32()
				}
			})
		})
	default:
		return nil, fmt.Errorf("cannot convert %s to %s", from, to)
	}
	if err == nil {
		err = inner
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SetFeatureStats stores the mean and standard deviation the head uses to
// standardize the raw parent features (fitted on training data). Every std
// must be positive.
func (m *Model) SetFeatureStats(mean, std [NumFeatures]float32) error {
	for i, s := range std {
		if !(s > 0) || math.IsInf(float64(s), 0) || math.IsNaN(float64(mean[i])) {
			return fmt.Errorf("model: feature %d: mean %g, std %g: want finite mean, std > 0", i, mean[i], s)
		}
	}
	return SetFeatureStats(m.mctx, mean, std)
}
