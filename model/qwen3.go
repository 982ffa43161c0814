package model

import (
	"fmt"
	"strconv"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/shapes"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// BaseScope is the GoMLX scope of the decoder weights. Below it, scopes follow
// the Hugging Face keys: "embed_tokens.weight" is variable "weight" in scope
// /model/embed_tokens, "layers.3.self_attn.q_proj.weight" is "weight" in
// /model/layers/3/self_attn/q_proj. Linear weights keep HF's [out, in] layout.
const BaseScope = "model"

// DefaultBins is D+1 for the default maximum depth D = 4.
const DefaultBins = 5

// Options are the choices of a Model beyond its architecture.
type Options struct {
	// DType of the frozen decoder weights and activations: Float32 (default)
	// or BFloat16. LoRA and head variables are always float32.
	DType dtypes.DType
	// LoRA adds adapters; nil means none.
	LoRA *LoRAConfig
	// Bins is D+1, the number of solve-distance bins (default DefaultBins).
	Bins int
	// HeadHidden is the width of the head's hidden layer (default 256).
	HeadHidden int
	// Seed seeds random initialization of variables not loaded from files.
	Seed int64
}

// Model is a Qwen3 decoder with optional LoRA adapters and the priority head.
// Its variables live in a GoMLX context; a Model is not safe for concurrent
// mutation (loading, merging) but its Context may back many executions.
type Model struct {
	Config Config
	Opts   Options
	mctx   *mlctx.Context
	// hfPrefix is "model." when the base checkpoint's keys carry it
	// (Qwen3ForCausalLM), "" for a bare Qwen3Model.
	hfPrefix string
}

// New makes a Model whose variables are created (randomly initialized from
// opts.Seed) on first use unless loaded before.
func New(cfg Config, opts Options) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.DType == dtypes.InvalidDType {
		opts.DType = dtypes.Float32
	}
	if opts.DType != dtypes.Float32 && opts.DType != dtypes.BFloat16 {
		return nil, fmt.Errorf("model: dtype %s unsupported (float32 or bfloat16)", opts.DType)
	}
	if opts.Bins == 0 {
		opts.Bins = DefaultBins
	}
	if opts.Bins < 2 {
		return nil, fmt.Errorf("model: %d bins, want ≥ 2", opts.Bins)
	}
	if opts.HeadHidden == 0 {
		opts.HeadHidden = 256
	}
	if opts.LoRA != nil {
		l := *opts.LoRA
		if err := l.Validate(); err != nil {
			return nil, err
		}
		opts.LoRA = &l
	}
	mctx := mlctx.New()
	mctx.SetParam(mlctx.ParamInitialSeed, opts.Seed)
	return &Model{Config: cfg, Opts: opts, mctx: mctx}, nil
}

// Context returns the GoMLX context holding the model's variables (for
// training: base weights are untrainable; LoRA and head variables train).
func (m *Model) Context() *mlctx.Context { return m.mctx }

// onesInit and normalInit are variable initializers in any float dtype.
func onesInit(mctx *mlctx.Context) mlctx.VariableInitializer {
	return func(g *Graph, s shapes.Shape) *Node { return Ones(g, s) }
}

func zerosInit(mctx *mlctx.Context) mlctx.VariableInitializer {
	return func(g *Graph, s shapes.Shape) *Node { return Zeros(g, s) }
}

func normalInit(std float64) func(*mlctx.Context) mlctx.VariableInitializer {
	return func(mctx *mlctx.Context) mlctx.VariableInitializer {
		return func(g *Graph, s shapes.Shape) *Node {
			v := MulScalar(mctx.RandomNormal(g, shapes.Make(dtypes.Float32, s.Dimensions...)), std)
			return ConvertDType(v, s.DType)
		}
	}
}

// ParamTrainBase is the context parameter that makes the decoder's base
// weights trainable (training from random initialization, no --base);
// by default they are frozen and only LoRA adapters and the head train.
const ParamTrainBase = "triage_train_base"

// frozenParam returns the decoder weight name of scope mctx, created with
// init when it was not loaded: untrainable unless the context sets
// ParamTrainBase.
func frozenParam(mctx *mlctx.Context, g *Graph, name string, dtype dtypes.DType,
	init func(*mlctx.Context) mlctx.VariableInitializer, dims ...int) *Node {
	c := mctx.Checked(false)
	v := c.WithInitializer(init(c)).VariableWithShape(name, shapes.Make(dtype, dims...))
	v.SetTrainable(mlctx.GetParamOr(mctx, ParamTrainBase, false))
	return v.ValueGraph(g)
}

// statParam is a never-trained statistic (feature means and stds).
func statParam(mctx *mlctx.Context, g *Graph, name string, dtype dtypes.DType,
	init func(*mlctx.Context) mlctx.VariableInitializer, dims ...int) *Node {
	c := mctx.Checked(false)
	v := c.WithInitializer(init(c)).VariableWithShape(name, shapes.Make(dtype, dims...))
	v.SetTrainable(false)
	return v.ValueGraph(g)
}

// trainableParam is frozenParam for a trainable variable.
func trainableParam(mctx *mlctx.Context, g *Graph, name string, dtype dtypes.DType,
	init func(*mlctx.Context) mlctx.VariableInitializer, dims ...int) *Node {
	c := mctx.Checked(false)
	return c.WithInitializer(init(c)).VariableWithShape(name, shapes.Make(dtype, dims...)).ValueGraph(g)
}

// hidden runs the decoder: tokens, positions and segments are [B, T] int32
// (segments as in attentionBias); it returns the final-normed hidden states
// [B, T, hidden] in the model dtype.
func (m *Model) hidden(mctx *mlctx.Context, tokens, positions, segments *Node) *Node {
	c := m.Config
	g := tokens.Graph()
	base := mctx.In(BaseScope)
	emb := frozenParam(base.In("embed_tokens"), g, "weight", m.Opts.DType, normalInit(0.02), c.VocabSize, c.HiddenSize)
	h := Gather(emb, InsertAxes(tokens, -1)) // [B, T, hidden]
	cos, sin := ropeCosSin(positions, c.HeadDim, c.Theta(), m.Opts.DType)
	bias := attentionBias(segments) // [B, 1, 1, T, T]
	for l := 0; l < c.NumHiddenLayers; l++ {
		lc := base.In("layers").In(strconv.Itoa(l))
		x := rmsNorm(lc.In("input_layernorm"), h, c.RMSNormEps)
		h = Add(h, m.selfAttention(lc.In("self_attn"), x, cos, sin, bias))
		x = rmsNorm(lc.In("post_attention_layernorm"), h, c.RMSNormEps)
		h = Add(h, m.mlp(lc.In("mlp"), x))
	}
	return rmsNorm(base.In("norm"), h, c.RMSNormEps)
}

// linear is an HF nn.Linear without bias under scope mctx: y = x·Wᵀ with the
// frozen W [out, in], plus the LoRA update when module is a LoRA target.
func (m *Model) linear(mctx *mlctx.Context, module string, x *Node, out int) *Node {
	in := x.Shape().Dimensions[x.Rank()-1]
	w := frozenParam(mctx, x.Graph(), "weight", m.Opts.DType, normalInit(0.02), out, in)
	y := Einsum("bti,oi->bto", x, w) // [B, T, out]
	if m.Opts.LoRA != nil && m.Opts.LoRA.targets(module) {
		y = Add(y, m.Opts.LoRA.delta(mctx, x, out))
	}
	return y
}
