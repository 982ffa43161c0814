package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	gtrain "github.com/gomlx/gomlx/pkg/ml/train"

	"triage/model"
)

// BenchOptions configure BenchTrain: a random-weight Qwen3 of Config with
// LoRA (frozen base) trained on random Seq-token examples, one scored
// position per example (as the PyTorch + PEFT anchor does), Batch examples
// per step.
type BenchOptions struct {
	Config  model.Config
	Options model.Options
	Batch   int
	Seq     int
	Steps   int
	Seed    uint64
}

// BenchResult is one batch size's measurement.
type BenchResult struct {
	Batch        int     `json:"batch"`
	Seq          int     `json:"seq"`
	FirstStepS   float64 `json:"first_step_s"` // compilation + variable creation + one step
	StepS        float64 `json:"step_s"`       // mean of the timed steps
	TokensPerSec float64 `json:"tokens_per_sec"`
	// MFU counts the decoder's matmul parameters only (4 FLOPs per
	// parameter per token with a frozen base), over PeakTFLOPs.
	MFU           float64 `json:"mfu"`
	MatmulParams  int64   `json:"matmul_params"`
	PeakTFLOPs    float64 `json:"peak_tflops"`
	TrainableVars int     `json:"trainable_vars"`
	Loss          float64 `json:"last_loss"`
}

// MatmulParams counts the decoder's linear-layer weights (what the MFU of
// the PyTorch reference in docs/training.md counts: q, k, v, o, gate, up, down per layer).
func MatmulParams(c model.Config) int64 {
	q, kv := int64(c.NumAttentionHeads*c.HeadDim), int64(c.NumKeyValueHeads*c.HeadDim)
	h, i := int64(c.HiddenSize), int64(c.IntermediateSize)
	per := h*q + 2*h*kv + q*h + 3*h*i
	return per * int64(c.NumHiddenLayers)
}

// benchBatch is BenchTrain's one batch: o.Batch sequences of o.Seq random
// tokens, five sixths prefix and one edit each, with random labels.
func benchBatch(net *model.Qwen3Net, o BenchOptions) (model.Batch, []*tensors.Tensor, error) {
	rng := rand.New(rand.NewPCG(o.Seed, 3))
	groups := make([]model.Encoded, o.Batch)
	for i := range groups {
		ids := make([]int32, o.Seq)
		for j := range ids {
			ids[j] = int32(rng.IntN(o.Config.VocabSize))
		}
		cut := o.Seq * 5 / 6
		groups[i] = model.Encoded{Prefix: ids[:cut], Edits: [][]int32{ids[cut:]}, B: []int{4},
			Features: [model.NumFeatures]float32{rng.Float32(), 0.25, rng.Float32(), 0.5}}
	}
	batches, err := net.Batches(groups, o.Batch)
	if err != nil {
		return model.Batch{}, nil, err
	}
	if len(batches) != 1 {
		return model.Batch{}, nil, fmt.Errorf("bench train: %d batches", len(batches))
	}
	bt := batches[0]
	tt := make([]int32, bt.Rows*bt.K)
	bb := make([]int32, bt.Rows*bt.K)
	mask := make([]float32, bt.Rows*bt.K)
	for i := range tt {
		tt[i], bb[i], mask[i] = int32(rng.IntN(5)), 4, 1
	}
	labels := []*tensors.Tensor{tensors.FromFlatDataAndDimensions(tt, bt.Rows, bt.K),
		tensors.FromFlatDataAndDimensions(bb, bt.Rows, bt.K), tensors.FromFlatDataAndDimensions(mask, bt.Rows, bt.K)}
	return bt, labels, nil
}

// BenchTrain measures LoRA training throughput on backend: the first step
// (compilation included) and the mean of o.Steps timed steps after it.
// peakTFLOPs is the accelerator's dense bf16 peak for MFU (0: not reported).
func BenchTrain(ctx context.Context, backend backends.Backend, o BenchOptions, peakTFLOPs float64) (BenchResult, error) {
	if o.Batch <= 0 || o.Seq < 8 || o.Steps <= 0 {
		return BenchResult{}, fmt.Errorf("bench train: batch %d, seq %d, steps %d", o.Batch, o.Seq, o.Steps)
	}
	opts := o.Options
	if opts.LoRA == nil {
		l := model.DefaultLoRA()
		opts.LoRA = &l
	}
	m, err := model.New(o.Config, opts)
	if err != nil {
		return BenchResult{}, err
	}
	if err := model.SetFeatureStats(m.Context(), [model.NumFeatures]float32{}, [model.NumFeatures]float32{1, 1, 1, 1}); err != nil {
		return BenchResult{}, err
	}
	net := &model.Qwen3Net{M: m, EditsPerRow: 1}
	bt, labels, err := benchBatch(net, o)
	if err != nil {
		return BenchResult{}, err
	}
	opt := newClippedAdamW(Schedule{Peak: 1e-4, Warmup: 1, Total: o.Steps + 1, MinRatio: 0.1}, 0.01, 1)
	trainer := gtrain.NewTrainer(backend, m.Context(),
		func(c *mlctx.Context, _ any, in []*Node) []*Node { return []*Node{net.Logits(c, in)} },
		func(labels, preds []*Node) *Node { return SurvivalLoss(preds[0], labels[0], labels[1], labels[2]) },
		opt, nil, nil)
	step := func() (float64, error) {
		metrics, err := trainer.TrainStep(nil, bt.Inputs, labels)
		if err != nil {
			return 0, err
		}
		l, err := tensors.CopyFlatData[float32](metrics[0]) // waits for the step
		if err != nil {
			return 0, err
		}
		return float64(l[0]), nil
	}
	res := BenchResult{Batch: o.Batch, Seq: bt.Inputs[0].Shape().Dimensions[1], MatmulParams: MatmulParams(o.Config), PeakTFLOPs: peakTFLOPs}
	start := time.Now()
	if _, err := step(); err != nil {
		return res, fmt.Errorf("bench train: first step: %w", err)
	}
	res.FirstStepS = time.Since(start).Seconds()
	m.Context().EnumerateVariables(func(v *mlctx.Variable) {
		if v.Trainable {
			res.TrainableVars++
		}
	})
	start = time.Now()
	for s := 0; s < o.Steps; s++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		l, err := step()
		if err != nil {
			return res, fmt.Errorf("bench train: step %d: %w", s+1, err)
		}
		res.Loss = l
	}
	res.StepS = time.Since(start).Seconds() / float64(o.Steps)
	res.TokensPerSec = float64(o.Batch*o.Seq) / res.StepS
	if peakTFLOPs > 0 {
		res.MFU = 4 * float64(res.MatmulParams) * res.TokensPerSec / (peakTFLOPs * 1e12)
	}
	return res, nil
}
