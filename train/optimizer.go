package train

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/train/optimizers"
)

// Schedule is the learning-rate schedule: linear warm-up from 0 to Peak
// over Warmup steps, then a cosine decay to Peak·MinRatio at Total steps.
type Schedule struct {
	Peak     float64
	Warmup   int
	Total    int
	MinRatio float64
}

// At returns the learning rate of optimizer step s (0-based), on the host.
func (s Schedule) At(step int) float64 {
	if s.Warmup > 0 && step < s.Warmup {
		return s.Peak * float64(step+1) / float64(s.Warmup)
	}
	span := max(s.Total-s.Warmup, 1)
	frac := math.Min(1, float64(step-s.Warmup)/float64(span))
	cos := (1 + math.Cos(math.Pi*frac)) / 2
	return s.Peak * (s.MinRatio + (1-s.MinRatio)*cos)
}

// clippedAdamW is AdamW (GoMLX's Adam with decoupled weight decay and
// float32 moments) behind two additions GoMLX lacks: global-norm gradient
// clipping and an in-graph warm-up + cosine learning rate driven by the
// optimizer's own step counter. It implements GoMLX's optimizer interface
// and OptimizeWithGradients, so gradient accumulation works through it.
type clippedAdamW struct {
	inner    optimizers.Interface
	schedule Schedule
	clipNorm float64
}

// scheduleScope holds the schedule's step counter.
const scheduleScope = "schedule"

func newClippedAdamW(sched Schedule, weightDecay, clipNorm float64) *clippedAdamW {
	inner := optimizers.Adam().WeightDecay(weightDecay).DType(dtypes.Float32).LearningRate(sched.Peak).Done()
	return &clippedAdamW{inner: inner, schedule: sched, clipNorm: clipNorm}
}

// UpdateGraph implements optimizers.Interface.
func (o *clippedAdamW) UpdateGraph(ctx *mlctx.Context, g *Graph, loss *Node) {
	grads := ctx.BuildTrainableVariablesGradientsGraph(loss)
	o.UpdateGraphWithGradients(ctx, grads, loss.DType())
}

// UpdateGraphWithGradients implements train.OptimizeWithGradients.
func (o *clippedAdamW) UpdateGraphWithGradients(ctx *mlctx.Context, grads []*Node, lossDType dtypes.DType) {
	if len(grads) == 0 {
		panic("train: no trainable variables")
	}
	g := grads[0].Graph()
	// Learning rate of this step, written where Adam reads it.
	step := optimizers.IncrementGlobalStepGraph(ctx.In(scheduleScope), g, dtypes.Float32)
	step = Sub(step, ScalarOne(g, dtypes.Float32)) // 0-based
	lr := o.lrGraph(step)
	optimizers.LearningRateVar(ctx, dtypes.Float32, o.schedule.Peak).SetValueGraph(lr)
	if o.clipNorm > 0 {
		var sq *Node
		for _, gr := range grads {
			s := ReduceAllSum(Square(ConvertDType(gr, dtypes.Float32)))
			if sq == nil {
				sq = s
			} else {
				sq = Add(sq, s)
			}
		}
		norm := Sqrt(sq)
		scale := Min(ScalarOne(g, dtypes.Float32), Div(Scalar(g, dtypes.Float32, o.clipNorm), Add(norm, Scalar(g, dtypes.Float32, 1e-6))))
		for i, gr := range grads {
			grads[i] = Mul(gr, ConvertDType(scale, gr.DType()))
		}
	}
	o.inner.(interface {
		UpdateGraphWithGradients(*mlctx.Context, []*Node, dtypes.DType)
	}).UpdateGraphWithGradients(ctx, grads, lossDType)
}

// lrGraph is Schedule.At in the graph.
func (o *clippedAdamW) lrGraph(step *Node) *Node {
	g := step.Graph()
	s := o.schedule
	f := func(v float64) *Node { return Scalar(g, dtypes.Float32, v) }
	warm := Mul(f(s.Peak), Div(Add(step, f(1)), f(float64(max(s.Warmup, 1)))))
	span := float64(max(s.Total-s.Warmup, 1))
	frac := Min(f(1), Max(f(0), Div(Sub(step, f(float64(s.Warmup))), f(span))))
	cos := Div(Add(f(1), Cos(Mul(f(math.Pi), frac))), f(2))
	decay := Mul(f(s.Peak), Add(f(s.MinRatio), Mul(f(1-s.MinRatio), cos)))
	if s.Warmup <= 0 {
		return decay
	}
	return Where(LessThan(step, f(float64(s.Warmup))), warm, decay)
}

// Clear implements optimizers.Interface.
func (o *clippedAdamW) Clear(ctx *mlctx.Context) error { return o.inner.Clear(ctx) }
