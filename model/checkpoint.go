package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"triage/model/codeprior"
	"triage/model/tokenizer"
)

// CheckpointFormat names the layout of a checkpoint folder (docs/checkpoint.md).
const CheckpointFormat = "triage-checkpoint/1"

// Checkpoint file names.
const (
	CheckpointFile = "checkpoint.json"
	WeightsFile    = "weights.safetensors"
	HeadFile       = "head.safetensors"
)

// ErrCheckpoint wraps every problem with a checkpoint folder: missing,
// truncated, tampered with, or made for another architecture.
var ErrCheckpoint = errors.New("bad checkpoint")

// Meta is checkpoint.json: everything needed to rebuild the model and to
// tell how it was made.
type Meta struct {
	Format string `json:"format"`
	// Arch is "bag" (the CPU architecture, --arch small) or "qwen3".
	Arch string `json:"arch"`
	// Bins is D+1; MaxDepth is D.
	Bins       int         `json:"bins"`
	MaxDepth   int         `json:"max_depth"`
	HeadHidden int         `json:"head_hidden"`
	Bag        *BagConfig  `json:"bag,omitempty"`
	Qwen3      *Config     `json:"qwen3,omitempty"`
	LoRA       *LoRAConfig `json:"lora,omitempty"`
	// DType of the Qwen3 decoder ("float32" or "bfloat16").
	DType  string   `json:"dtype,omitempty"`
	Limits *Limits  `json:"limits,omitempty"`
	Inputs InputSet `json:"inputs"`
	// FeatureMean and FeatureStd standardize the four parent features
	// (fitted on the training split); they are also in the weights.
	FeatureMean []float32 `json:"feature_mean"`
	FeatureStd  []float32 `json:"feature_std"`
	// Tokenizer names the tokenizer and its sha256 (qwen3).
	Tokenizer *TokenizerRef `json:"tokenizer,omitempty"`
	// Base references the frozen Hugging Face model of a LoRA checkpoint.
	Base *BaseRef `json:"base,omitempty"`
	// NGramVocab is the vocabulary size of the bag model's n-gram model.
	NGramVocab int `json:"ngram_vocab,omitempty"`
	// Prior is the code prior of a bag model with the Prior inputs.
	Prior *PriorRef `json:"prior,omitempty"`
	// Files maps each weight file of the folder to its sha256.
	Files map[string]string `json:"files"`
	// Training is the trainer's record (options, corpus, seed, history).
	Training json.RawMessage   `json:"training,omitempty"`
	Versions map[string]string `json:"versions,omitempty"`
}

// TokenizerRef identifies a tokenizer.
type TokenizerRef struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// BaseRef identifies the base model of a LoRA checkpoint.
type BaseRef struct {
	Path         string `json:"path"`
	ConfigSHA256 string `json:"config_sha256"`
}

// Bundle is a loaded or freshly built model: its architecture, variables
// and description.
type Bundle struct {
	Meta Meta
	Net  Net
	Ctx  *mlctx.Context
	// Qwen3 is the decoder model when Arch is "qwen3".
	Qwen3 *Model
}

// Scorer compiles the bundle's model on backend for scoring.
func (b *Bundle) Scorer(backend backends.Backend, maxRows int) (*Scorer, error) {
	return NewScorer(b.Net, b.Ctx, backend, maxRows)
}

// NewBag builds a bag-architecture bundle with random initialization from
// seed (variables are created on first use).
func NewBag(cfg BagConfig, bins, headHidden int, lm *NGram, seed int64) (*Bundle, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if bins < 2 || bins > 65 {
		return nil, fmt.Errorf("bag: %d bins, want 2..65", bins)
	}
	if headHidden <= 0 {
		headHidden = 64
	}
	if lm == nil {
		var err error
		if lm, err = NewNGram(cfg.NGramOrder, cfg.NGramBits); err != nil {
			return nil, err
		}
	}
	mctx := mlctx.New()
	mctx.SetParam(mlctx.ParamInitialSeed, seed)
	net := &BagNet{Config: cfg, Bins: bins, HeadHidden: headHidden, LM: lm}
	meta := Meta{Format: CheckpointFormat, Arch: "bag", Bins: bins,
		MaxDepth: bins - 1, HeadHidden: headHidden, Bag: &cfg, Inputs: cfg.Inputs}
	if cfg.Inputs.Prior {
		pr, err := codeprior.Default()
		if err != nil {
			return nil, fmt.Errorf("bag: %w", err)
		}
		net.Prior = pr
		meta.Prior = &PriorRef{SHA256: codeprior.DefaultSHA256()}
	}
	return &Bundle{Ctx: mctx, Net: net, Meta: meta}, nil
}

// PriorRef names the code prior a checkpoint's inputs were computed with:
// the sha256 of its artifact. A checkpoint is loaded only with that prior.
type PriorRef struct {
	SHA256 string `json:"sha256"`
}

// NewQwen3Bundle wraps a Qwen3 model with its tokenizer and limits.
func NewQwen3Bundle(m *Model, tok Tokenizer, lim Limits, inputs InputSet) *Bundle {
	cfg := m.Config
	meta := Meta{Format: CheckpointFormat, Arch: "qwen3", Bins: m.Opts.Bins, MaxDepth: m.Opts.Bins - 1,
		HeadHidden: m.Opts.HeadHidden, Qwen3: &cfg, LoRA: m.Opts.LoRA, DType: m.Opts.DType.String(),
		Limits: &lim, Inputs: inputs}
	return &Bundle{Meta: meta, Ctx: m.Context(), Qwen3: m,
		Net: &Qwen3Net{M: m, Tok: tok, Limits: lim, Inputs: inputs}}
}

// ngramKey is the weights-file key of the bag model's n-gram counts.
const ngramKey = "bag.ngram.counts"

// variableKey turns a variable's scope and name into a dotted key.
func variableKey(v *mlctx.Variable) string {
	scope := strings.Trim(v.Scope(), mlctx.ScopeSeparator)
	scope = strings.ReplaceAll(scope, mlctx.ScopeSeparator, ".")
	if scope == "" {
		return v.Name()
	}
	return scope + "." + v.Name()
}

// modelVariables returns the model's own variables (not the optimizer's) by
// dotted key: scopes under bag, head and model.
func modelVariables(mctx *mlctx.Context, scopes ...string) (map[string]*tensors.Tensor, error) {
	out := map[string]*tensors.Tensor{}
	var err error
	mctx.EnumerateVariables(func(v *mlctx.Variable) {
		if err != nil {
			return
		}
		key := variableKey(v)
		top, _, _ := strings.Cut(key, ".")
		if !slices.Contains(scopes, top) {
			return
		}
		t, e := v.Value()
		if e != nil {
			err = fmt.Errorf("variable %s: %w", key, e)
			return
		}
		out[key] = t
	})
	return out, err
}

// Save writes the bundle to dir as a checkpoint folder: weight files first,
// each through a temporary name, then checkpoint.json (written last, so a
// folder with a checkpoint.json is complete). A LoRA model over a base
// writes the PEFT adapter and head.safetensors; others write every weight.
func (b *Bundle) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	meta := b.Meta
	meta.Format = CheckpointFormat
	meta.Files = map[string]string{}
	mean, std, err := b.featureStats()
	if err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	meta.FeatureMean, meta.FeatureStd = mean, std
	if b.Meta.Arch == "qwen3" && b.Meta.Base != nil {
		if err := b.Qwen3.SaveAdapter(dir); err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
		head, err := modelVariables(b.Ctx, HeadScope)
		if err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
		if err := WriteSafetensorsFile(filepath.Join(dir, HeadFile), head, nil); err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
		for _, f := range []string{AdapterConfigFile, AdapterWeightsFile, HeadFile} {
			if meta.Files[f], err = fileSHA256(filepath.Join(dir, f)); err != nil {
				return fmt.Errorf("save checkpoint: %w", err)
			}
		}
	} else {
		vars, err := modelVariables(b.Ctx, BagScope, HeadScope, BaseScope)
		if err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
		if bn, ok := b.Net.(*BagNet); ok && bn.LM != nil {
			vars[ngramKey] = tensors.FromFlatDataAndDimensions(append([]int32(nil), bn.LM.Counts...), len(bn.LM.Counts))
			meta.NGramVocab = bn.LM.Vocab
		}
		if err := WriteSafetensorsFile(filepath.Join(dir, WeightsFile), vars, map[string]string{"format": CheckpointFormat}); err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
		if meta.Files[WeightsFile], err = fileSHA256(filepath.Join(dir, WeightsFile)); err != nil {
			return fmt.Errorf("save checkpoint: %w", err)
		}
	}
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("save checkpoint: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, CheckpointFile), append(data, '\n'))
}

// featureStats reads the head's feature statistics from the context.
func (b *Bundle) featureStats() ([]float32, []float32, error) {
	get := func(name string) ([]float32, error) {
		c, n := ScopeOf(b.Ctx, HeadScope+"."+name)
		v := c.GetVariableByScopeAndName(c.Scope(), n)
		if v == nil {
			return nil, fmt.Errorf("no %s: set the feature statistics before saving", name)
		}
		t, err := v.Value()
		if err != nil {
			return nil, err
		}
		return tensors.CopyFlatData[float32](t)
	}
	mean, err := get("feature_mean")
	if err != nil {
		return nil, nil, err
	}
	std, err := get("feature_std")
	return mean, std, err
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// LoadCheckpoint reads a checkpoint folder. Every problem (no folder, no or
// malformed checkpoint.json, an unknown format or architecture, a missing,
// truncated or altered weight file, a tensor of the wrong shape or a
// missing one) is an error wrapping ErrCheckpoint; nothing panics.
func LoadCheckpoint(dir string) (b *Bundle, err error) {
	defer func() {
		if r := recover(); r != nil { // GoMLX context calls panic on misuse; never let one escape
			b, err = nil, fmt.Errorf("%w: %s: %v", ErrCheckpoint, dir, r)
		}
	}()
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCheckpoint, dir, fmt.Sprintf(format, args...))
	}
	raw, err := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if err != nil {
		return nil, fail("%v", err)
	}
	var meta Meta
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&meta); err != nil {
		return nil, fail("%s: %v", CheckpointFile, err)
	}
	if meta.Format != CheckpointFormat {
		return nil, fail("format %q, this build reads %q", meta.Format, CheckpointFormat)
	}
	if meta.Bins < 2 || meta.Bins > 65 || meta.MaxDepth != meta.Bins-1 || meta.HeadHidden < 1 || meta.HeadHidden > 1<<14 {
		return nil, fail("bins %d, max_depth %d, head_hidden %d are inconsistent", meta.Bins, meta.MaxDepth, meta.HeadHidden)
	}
	if len(meta.FeatureMean) != NumFeatures || len(meta.FeatureStd) != NumFeatures {
		return nil, fail("feature statistics of %d/%d values, want %d", len(meta.FeatureMean), len(meta.FeatureStd), NumFeatures)
	}
	for name, sum := range meta.Files {
		if strings.ContainsAny(name, `/\`) || name == "" || strings.HasPrefix(name, ".") {
			return nil, fail("file name %q is not a plain file name", name)
		}
		got, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, fail("%v", err)
		}
		if got != sum {
			return nil, fail("%s: sha256 %s, checkpoint.json says %s (truncated or altered)", name, got, sum)
		}
	}
	switch meta.Arch {
	case "bag":
		b, err = loadBag(dir, meta)
	case "qwen3":
		b, err = loadQwen3(dir, meta)
	default:
		return nil, fail("architecture %q unknown (bag or qwen3)", meta.Arch)
	}
	if err != nil {
		return nil, fail("%v", err)
	}
	var mean, std [NumFeatures]float32
	copy(mean[:], meta.FeatureMean)
	copy(std[:], meta.FeatureStd)
	if err := SetFeatureStats(b.Ctx, mean, std); err != nil {
		return nil, fail("%v", err)
	}
	return b, nil
}

// loadWeights reads every tensor of a weights file into mctx, checking the
// names against want (key → shape and dtype); extra or missing tensors are
// errors.
func loadWeights(path string, mctx *mlctx.Context, want map[string]tensorSpec, trainable func(string) bool) error {
	if _, ok := want[""]; ok {
		return errors.New("internal: empty key")
	}
	if _, err := os.Stat(path); err != nil {
		return err
	}
	st, err := OpenSafetensors(path)
	if err != nil {
		return err
	}
	defer st.Close()
	var missing []string
	for k := range want {
		if _, ok := st.Info(k); !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("%s: %d missing tensors, e.g. %s", filepath.Base(path), len(missing), strings.Join(head(missing, 3), ", "))
	}
	for _, name := range st.Names() {
		spec, ok := want[name]
		if !ok {
			return fmt.Errorf("%s: unexpected tensor %q", filepath.Base(path), name)
		}
		info, _ := st.Info(name)
		if !slices.Equal(info.Shape, spec.shape) {
			return fmt.Errorf("%s: tensor %q has shape %v, want %v", filepath.Base(path), name, info.Shape, spec.shape)
		}
		t, err := st.Tensor(name)
		if err != nil {
			return err
		}
		if t.DType() != spec.dtype {
			if t, err = convertTensor(t, spec.dtype); err != nil {
				return fmt.Errorf("tensor %q: %w", name, err)
			}
		}
		if name == ngramKey {
			continue // not a graph variable; the caller reads it
		}
		if err := SetVariable(mctx, name, t, trainable(name)); err != nil {
			return err
		}
	}
	return nil
}

type tensorSpec struct {
	shape []int
	dtype dtypes.DType
}

// headSpecs are the head's tensors for an encoder output of width h.
func headSpecs(h, hid, bins int) map[string]tensorSpec {
	f := dtypes.Float32
	return map[string]tensorSpec{
		HeadScope + ".feature_mean":   {[]int{NumFeatures}, f},
		HeadScope + ".feature_std":    {[]int{NumFeatures}, f},
		HeadScope + ".dense_0.weight": {[]int{hid, h + NumFeatures}, f},
		HeadScope + ".dense_0.bias":   {[]int{hid}, f},
		HeadScope + ".dense_1.weight": {[]int{bins, hid}, f},
		HeadScope + ".dense_1.bias":   {[]int{bins}, f},
	}
}

func loadBag(dir string, meta Meta) (*Bundle, error) {
	if meta.Bag == nil {
		return nil, errors.New("arch bag without a bag configuration")
	}
	cfg := *meta.Bag
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Inputs != meta.Inputs {
		return nil, errors.New("inputs of the bag configuration and of the checkpoint differ")
	}
	if _, ok := meta.Files[WeightsFile]; !ok {
		return nil, fmt.Errorf("%s is not listed in files", WeightsFile)
	}
	lm, err := NewNGram(cfg.NGramOrder, cfg.NGramBits)
	if err != nil {
		return nil, err
	}
	if meta.NGramVocab < 0 {
		return nil, fmt.Errorf("n-gram vocabulary %d", meta.NGramVocab)
	}
	lm.Vocab = meta.NGramVocab
	b, err := NewBag(cfg, meta.Bins, meta.HeadHidden, lm, 0)
	if err != nil {
		return nil, err
	}
	if cfg.Inputs.Prior && (meta.Prior == nil || meta.Prior.SHA256 != b.Meta.Prior.SHA256) {
		return nil, fmt.Errorf("checkpoint %s: its inputs were computed with code prior %v, this binary embeds %s",
			dir, meta.Prior, b.Meta.Prior.SHA256)
	}
	b.Meta = meta
	f := dtypes.Float32
	nd := len(cfg.Dense())
	want := headSpecs(cfg.Hidden, meta.HeadHidden, meta.Bins)
	want[BagScope+".embed.weight"] = tensorSpec{[]int{cfg.Buckets, cfg.Embed}, f}
	want[BagScope+".dense_mean"] = tensorSpec{[]int{nd}, f}
	want[BagScope+".dense_std"] = tensorSpec{[]int{nd}, f}
	want[BagScope+".encoder.weight"] = tensorSpec{[]int{cfg.Hidden, 3*cfg.Embed + nd}, f}
	want[BagScope+".encoder.bias"] = tensorSpec{[]int{cfg.Hidden}, f}
	want[ngramKey] = tensorSpec{[]int{1 << cfg.NGramBits}, dtypes.Int32}
	path := filepath.Join(dir, WeightsFile)
	stats := map[string]bool{HeadScope + ".feature_mean": true, HeadScope + ".feature_std": true,
		BagScope + ".dense_mean": true, BagScope + ".dense_std": true}
	if err := loadWeights(path, b.Ctx, want, func(k string) bool { return !stats[k] }); err != nil {
		return nil, err
	}
	st, err := OpenSafetensors(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	t, err := st.Tensor(ngramKey)
	if err != nil {
		return nil, err
	}
	counts, err := tensors.CopyFlatData[int32](t)
	if err != nil {
		return nil, err
	}
	lm.Counts = counts
	if err := lm.Validate(); err != nil {
		return nil, err
	}
	return b, nil
}

// loadQwen3 loads a Qwen3 checkpoint: its configuration, dtype, token
// limits and tokenizer reference checked, and its weights (a LoRA adapter
// and head over a base model's folder, or every weight from dir).
func loadQwen3(dir string, meta Meta) (*Bundle, error) {
	if meta.Qwen3 == nil {
		return nil, errors.New("arch qwen3 without a qwen3 configuration")
	}
	cfg := *meta.Qwen3
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dt := dtypes.Float32
	if meta.DType == dtypes.BFloat16.String() {
		dt = dtypes.BFloat16
	}
	lim := DefaultLimits()
	if meta.Limits != nil {
		lim = *meta.Limits
	}
	if lim.Feedback < 0 || lim.Diagnosis < 0 || lim.Edit < 0 || lim.Feedback+lim.Diagnosis+lim.Edit > 1<<16 {
		return nil, fmt.Errorf("token limits %+v out of range", lim)
	}
	if meta.Tokenizer == nil || meta.Tokenizer.Name != "qwen3" {
		return nil, errors.New("qwen3 checkpoint without the qwen3 tokenizer reference")
	}
	tok, err := tokenizer.Qwen3()
	if err != nil {
		return nil, err
	}
	if meta.Tokenizer.SHA256 != "" && meta.Tokenizer.SHA256 != tokenizer.Qwen3SHA256 {
		return nil, fmt.Errorf("tokenizer sha256 %s, this build embeds %s", meta.Tokenizer.SHA256, tokenizer.Qwen3SHA256)
	}
	opts := Options{DType: dt, Bins: meta.Bins, HeadHidden: meta.HeadHidden}
	var m *Model
	if meta.Base != nil {
		m, err = loadLoRAOnBase(dir, meta, cfg, opts)
	} else {
		m, err = loadWholeQwen3(dir, meta, cfg, opts)
	}
	if err != nil {
		return nil, err
	}
	b := NewQwen3Bundle(m, tok, lim, meta.Inputs)
	b.Meta = meta
	return b, nil
}

// notFeatureStats says which weights a checkpoint must hold: all but the
// feature statistics, which a checkpoint may leave out.
func notFeatureStats(k string) bool {
	return !strings.HasSuffix(k, "feature_mean") && !strings.HasSuffix(k, "feature_std")
}

// loadLoRAOnBase loads a LoRA checkpoint over a frozen base: the base from
// its folder (its config.json the one the checkpoint was trained on), the
// adapter and the head from dir.
func loadLoRAOnBase(dir string, meta Meta, cfg Config, opts Options) (*Model, error) {
	sum, err := fileSHA256(filepath.Join(meta.Base.Path, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("base model: %w", err)
	}
	if meta.Base.ConfigSHA256 != "" && sum != meta.Base.ConfigSHA256 {
		return nil, fmt.Errorf("base model %s: config.json sha256 %s, the checkpoint was trained on %s", meta.Base.Path, sum, meta.Base.ConfigSHA256)
	}
	m, err := Load(meta.Base.Path, opts)
	if err != nil {
		return nil, err
	}
	if m.Config.HiddenSize != cfg.HiddenSize || m.Config.NumHiddenLayers != cfg.NumHiddenLayers {
		return nil, fmt.Errorf("base model %s does not match the checkpoint's configuration", meta.Base.Path)
	}
	if err := m.LoadAdapter(dir); err != nil {
		return nil, err
	}
	if err := loadWeights(filepath.Join(dir, HeadFile), m.Context(), headSpecs(cfg.HiddenSize, meta.HeadHidden, meta.Bins), notFeatureStats); err != nil {
		return nil, err
	}
	return m, nil
}

// loadWholeQwen3 loads a checkpoint that holds every weight: the decoder
// (in opts.DType), its LoRA adapter if it has one, and the head.
func loadWholeQwen3(dir string, meta Meta, cfg Config, opts Options) (*Model, error) {
	if meta.LoRA != nil {
		opts.LoRA = meta.LoRA
	}
	m, err := New(cfg, opts)
	if err != nil {
		return nil, err
	}
	want := headSpecs(cfg.HiddenSize, meta.HeadHidden, meta.Bins)
	for k, shape := range cfg.baseShapes() {
		want[BaseScope+"."+k] = tensorSpec{shape, opts.DType}
	}
	if meta.LoRA != nil {
		for k, shape := range m.loraKeys(*meta.LoRA) {
			want[BaseScope+"."+k] = tensorSpec{shape, dtypes.Float32}
		}
	}
	if err := loadWeights(filepath.Join(dir, WeightsFile), m.Context(), want, notFeatureStats); err != nil {
		return nil, err
	}
	return m, nil
}
