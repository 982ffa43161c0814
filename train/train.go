// Package train trains the priority model: examples streamed from corpus
// shards (the expanded edits of one parent per example, labelled with their
// solve distances), the discrete-survival loss, AdamW with warm-up + cosine,
// global-norm clipping and gradient accumulation, validation by replaying
// the learned policy on the validation split (E[T], the metric that
// matters), best-checkpoint keeping, and resumable state.
//
// Imports: model, corpus, policy and search/eval (replay validation). The
// experiments built on training are in train/experiment.
package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gomlx/gomlx/backends"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph code reads as math
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	gtrain "github.com/gomlx/gomlx/pkg/ml/train"
	"golang.org/x/sync/errgroup"

	"triage/corpus"
	"triage/model"
)

// Options configure Train. Zero values take the defaults of DefaultOptions.
type Options struct {
	// Arch is "small" (the CPU bag architecture), "0.6b" (Qwen3-0.6B's
	// shape) or the path of a Hugging Face Qwen3 config.json.
	Arch string `json:"arch"`
	// Base is a Hugging Face Qwen3 folder: its decoder is loaded and frozen
	// and only LoRA adapters and the head train. Empty: every weight trains
	// from random initialization.
	Base string `json:"base,omitempty"`
	// DType of the Qwen3 decoder: "f32" or "bf16" (bf16 compute; LoRA,
	// head and optimizer state stay float32).
	DType string `json:"dtype"`
	// Batch is the number of parents (examples) per micro-batch; Accum the
	// micro-batches per optimizer step.
	Batch int `json:"batch"`
	Accum int `json:"accum"`
	// Steps is the number of optimizer steps; when 0, Epochs passes over
	// the training split.
	Steps  int     `json:"steps"`
	Epochs float64 `json:"epochs"`
	// LR is the peak learning rate; Warmup the fraction of steps of linear
	// warm-up; MinLR the final fraction of LR after cosine decay.
	LR          float64 `json:"lr"`
	Warmup      float64 `json:"warmup"`
	MinLR       float64 `json:"min_lr"`
	WeightDecay float64 `json:"weight_decay"`
	ClipNorm    float64 `json:"clip_norm"`
	Seed        uint64  `json:"seed"`
	// ValEvery is the number of optimizer steps between validations
	// (0: only at the end).
	ValEvery int `json:"val_every"`
	// Shuffle is the shuffle buffer in examples.
	Shuffle int `json:"shuffle"`
	// Bag is the small architecture's configuration (its Inputs field is
	// overridden by Inputs).
	Bag model.BagConfig `json:"bag"`
	// Limits are the Qwen3 serialization's token caps.
	Limits model.Limits `json:"limits"`
	// Inputs switches off parts of the input (ablations).
	Inputs model.InputSet `json:"inputs"`
	// HeadHidden is the head's hidden width.
	HeadHidden int `json:"head_hidden"`
	// MaxDepth is D (the corpus's depth limit); bins are D+1.
	MaxDepth int `json:"max_depth"`
	// RankWeight adds RankWeight × SiblingRankLoss to the survival loss
	// (0: the survival loss alone, as the paper trains).
	RankWeight float64 `json:"rank_weight,omitempty"`
}

// DefaultOptions are the options of the embedded default (--arch small).
// Eight epochs: 5-fold cross-validation by task on the bundled corpus gave
// learned E[T] 14.81 at 4 epochs, 14.13 at 8 and 14.20 at 12 (docs/results.md).
func DefaultOptions() Options {
	return Options{Arch: "small", DType: "f32", Batch: 64, Accum: 1, Epochs: 8, LR: 3e-3, Warmup: 0.05,
		MinLR: 0.05, WeightDecay: 1e-4, ClipNorm: 1, Seed: 1, ValEvery: 100, Shuffle: 4096,
		Bag: model.DefaultBagConfig(), Limits: model.DefaultLimits(), HeadHidden: 64, MaxDepth: 4}
}

func (o *Options) fill() {
	d := DefaultOptions()
	if o.Arch == "" {
		o.Arch = d.Arch
	}
	if o.DType == "" {
		o.DType = d.DType
	}
	if o.Batch == 0 {
		o.Batch = d.Batch
	}
	if o.Accum == 0 {
		o.Accum = d.Accum
	}
	if o.Steps == 0 && o.Epochs == 0 {
		o.Epochs = d.Epochs
	}
	if o.LR == 0 {
		o.LR = d.LR
	}
	if o.ClipNorm == 0 {
		o.ClipNorm = d.ClipNorm
	}
	if o.Shuffle == 0 {
		o.Shuffle = d.Shuffle
	}
	if o.Bag == (model.BagConfig{}) {
		o.Bag = d.Bag
	}
	o.Bag.Inputs = o.Inputs
	if o.Limits == (model.Limits{}) {
		o.Limits = d.Limits
	}
	if o.HeadHidden == 0 {
		o.HeadHidden = d.HeadHidden
		if o.Arch != "small" {
			o.HeadHidden = 256
		}
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = d.MaxDepth
	}
}

// Validate checks the options (after defaults).
func (o *Options) Validate() error {
	switch {
	case o.Batch < 1 || o.Accum < 1:
		return fmt.Errorf("batch %d and accum %d must be ≥ 1", o.Batch, o.Accum)
	case o.Steps < 0 || o.Epochs < 0:
		return fmt.Errorf("steps %d and epochs %g must be ≥ 0", o.Steps, o.Epochs)
	case !(o.LR > 0) || o.LR > 10:
		return fmt.Errorf("learning rate %g outside (0, 10]", o.LR)
	case o.Warmup < 0 || o.Warmup >= 1 || o.MinLR < 0 || o.MinLR > 1:
		return fmt.Errorf("warmup %g must lie in [0, 1) and min_lr %g in [0, 1]", o.Warmup, o.MinLR)
	case o.WeightDecay < 0 || o.ClipNorm < 0:
		return fmt.Errorf("weight decay %g and clip norm %g must be ≥ 0", o.WeightDecay, o.ClipNorm)
	case o.ValEvery < 0 || o.Shuffle < 0:
		return fmt.Errorf("val-every %d and shuffle %d must be ≥ 0", o.ValEvery, o.Shuffle)
	case o.RankWeight < 0 || math.IsNaN(o.RankWeight) || o.RankWeight > 100:
		return fmt.Errorf("rank weight %v outside [0, 100]", o.RankWeight)
	case o.MaxDepth < 1 || o.MaxDepth > 64:
		return fmt.Errorf("max depth %d outside [1, 64]", o.MaxDepth)
	case o.DType != "f32" && o.DType != "bf16":
		return fmt.Errorf("dtype %q: want f32 or bf16", o.DType)
	case o.Arch == "small" && o.Base != "":
		return corpus.FieldErrorf("{Base} loads a Qwen3 decoder: use {Arch} 0.6b or a config.json with it")
	case o.Arch == "small" && o.DType != "f32":
		return errors.New("the small architecture trains in f32")
	case o.Arch != "small" && (o.Inputs.NoProgram || o.Inputs.NoWords || o.Inputs.Siblings || o.Inputs.Prior):
		return corpus.FieldErrorf("{Inputs.NoProgram}, {Inputs.NoWords}, {Inputs.Siblings} and {Inputs.Prior} are inputs of the small architecture (a Qwen3 model reads the text it is given: use {Inputs.NoParentText}, {Inputs.NoEditText})")
	}
	if o.Arch == "small" {
		return o.Bag.Validate()
	}
	return nil
}

// Progress is reported after every optimizer step.
type Progress struct {
	Step, Total  int
	Epoch        int
	Loss         float64 // mean loss of the last step's micro-batches
	EdgesPerSec  float64
	TokensPerSec float64 // Qwen3 only: real tokens per second
	Elapsed      time.Duration
	ETA          time.Duration
	Val          *Validation // set on validation steps
	BestET       float64
}

// Record is one line of the metrics log (metrics.jsonl).
type Record struct {
	Step        int         `json:"step"`
	Epoch       int         `json:"epoch"`
	Loss        float64     `json:"loss,omitempty"`
	LR          float64     `json:"lr,omitempty"`
	EdgesPerSec float64     `json:"edges_per_sec,omitempty"`
	Seconds     float64     `json:"seconds"`
	Val         *Validation `json:"val,omitempty"`
}

// Run is what Train returns.
type Run struct {
	Stats    Stats        `json:"stats"`
	Steps    int          `json:"steps"`
	Best     *Validation  `json:"best"`
	BestStep int          `json:"best_step"`
	History  []Record     `json:"history"`
	Seconds  float64      `json:"seconds"`
	Out      string       `json:"out"`
	Resumed  bool         `json:"resumed"`
	Final    *Validation  `json:"final,omitempty"`
	Options  Options      `json:"options"`
	Sources  SourceRecord `json:"sources"`
	// Command is the command line that made the run (recorded in the
	// checkpoint); Test the best checkpoint's replay on Env.Test.
	Command string      `json:"command,omitempty"`
	Test    *Validation `json:"test,omitempty"`
}

// SourceRecord names the data a checkpoint was trained on.
type SourceRecord struct {
	Corpus       []string `json:"corpus"`
	ManifestHash string   `json:"manifest_sha256,omitempty"`
	// Manifests is each corpus folder's own hash (sha256 over its
	// manifest*.json files in name order), so one corpus can be checked
	// without the others.
	Manifests map[string]string `json:"manifests_sha256,omitempty"`
}

// Env is what Train runs with: the data, the backend, where to write and
// how to report.
type Env struct {
	Train, Val Source
	// Test, when set, is replayed with the best checkpoint after training;
	// its E[T] is recorded in the checkpoint (never used to choose anything).
	Test Source
	// Command is recorded in the checkpoint.
	Command  string
	Backend  backends.Backend
	Out      string
	Resume   bool
	Sources  SourceRecord
	Logger   *slog.Logger
	Progress func(Progress)
	// Versions are recorded in the checkpoint.
	Versions map[string]string
	// BuildQwen3 makes the Qwen3 bundle for a non-small Arch (wired by the
	// caller so this package needs no Hugging Face loading of its own).
	BuildQwen3 func(o Options, st Stats) (*model.Bundle, error)
	// stopAfter ends the run after this many optimizer steps without the
	// final validation (tests of resume).
	stopAfter int
}

// lastDir holds the resumable state inside the output folder.
const lastDir = "last"

// state is last/state.json: where training stands.
type state struct {
	Step     int        `json:"step"`
	Epoch    int        `json:"epoch"`
	InEpoch  int64      `json:"groups_in_epoch"`
	Options  Options    `json:"options"`
	Stats    Stats      `json:"stats"`
	BestET   float64    `json:"best_et"`
	BestStep int        `json:"best_step"`
	Best     Validation `json:"best"`
	History  []Record   `json:"history"`
	Seconds  float64    `json:"seconds"`
}

// Train trains a priority model and writes the best checkpoint (by
// validation E[T]) to env.Out, its resumable state to env.Out/last, the
// metrics log and a plot. With env.Resume it continues a run from
// env.Out/last with the same options and data order.
func Train(ctx context.Context, o Options, env Env) (*Run, error) {
	o.fill()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	log := env.Logger
	if log == nil {
		log = slog.Default()
	}
	if env.Out == "" {
		return nil, errors.New("train: no output folder")
	}
	start := time.Now()
	resumed, err := prepareOut(o, env)
	if err != nil {
		return nil, err
	}
	l, err := newLoop(ctx, o, env, resumed, start, log)
	if err != nil {
		return nil, err
	}
	if done, err := l.loop(ctx); !done || err != nil {
		return l.run, err
	}
	return l.finish(ctx)
}

// Started reports whether out holds a run's saved state (a run that was
// interrupted or that finished), which Env.Resume continues; a run of
// several trainings (cross-validation) resumes those that started and
// begins the others.
func Started(out string) bool {
	_, err := os.Stat(filepath.Join(out, lastDir, "state.json"))
	return err == nil
}

// prepareOut checks env.Out for a run to resume (env.Resume) or one that
// must not be overwritten, and makes its folders. It returns the state of
// the run to resume, nil for a new run.
func prepareOut(o Options, env Env) (*state, error) {
	var resumed *state
	if env.Resume {
		st, err := readState(filepath.Join(env.Out, lastDir))
		if err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		a, _ := json.Marshal(st.Options)
		b, _ := json.Marshal(o)
		if string(a) != string(b) {
			return nil, fmt.Errorf("train: resume: options differ from the interrupted run's (%s, now %s)", a, b)
		}
		resumed = st
	} else if _, err := os.Stat(filepath.Join(env.Out, model.CheckpointFile)); err == nil {
		return nil, corpus.FieldErrorf("train: %s already holds a checkpoint (use {Resume} to continue it, or a new folder)", env.Out)
	} else if _, err := os.Stat(filepath.Join(env.Out, lastDir, "state.json")); err == nil {
		return nil, corpus.FieldErrorf("train: %s holds an interrupted run (use {Resume}, or a new folder)", env.Out)
	}
	if err := os.MkdirAll(filepath.Join(env.Out, lastDir), 0o755); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return resumed, nil
}

// trainLoop is one training run as it goes: the model, the trainer, the
// schedule and where the run stands.
type trainLoop struct {
	o       Options
	env     Env
	log     *slog.Logger
	b       *model.Bundle
	st      Stats
	run     *Run
	sched   Schedule
	trainer *gtrain.Trainer
	pipe    *pipeline
	total   int
	start   time.Time
	// oof are the bag model's out-of-fold n-grams (nil for other
	// models); encode encodes a training group with them.
	oof    *foldLMs
	encode func(Group) (model.Encoded, error)

	step, epoch int
	inEpoch     int64
	best        Validation
}

// newLoop loads the model (resumed) or builds it, and sets up the trainer.
func newLoop(ctx context.Context, o Options, env Env, resumed *state, start time.Time, log *slog.Logger) (*trainLoop, error) {
	l := &trainLoop{o: o, env: env, log: log, start: start, best: Validation{ET: -1}}
	var err error
	if resumed != nil {
		if l.b, err = model.LoadCheckpoint(filepath.Join(env.Out, lastDir)); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		l.st = resumed.Stats
		if _, ok := l.b.Net.(*model.BagNet); ok {
			if l.oof, err = fitFoldLMs(ctx, env.Train, o.Bag.NGramOrder, o.Bag.NGramBits); err != nil {
				return nil, fmt.Errorf("train: resume: %w", err)
			}
		}
	} else if l.b, l.st, l.oof, err = buildModel(ctx, o, env, log); err != nil {
		return nil, err
	}
	l.encode = encoder(l.b.Net, l.oof)
	st := l.st
	l.run = &Run{Stats: st, Out: env.Out, Resumed: resumed != nil, Options: o, Sources: env.Sources}
	perEpoch := int(max(1, (st.Groups+int64(o.Batch*o.Accum)-1)/int64(o.Batch*o.Accum)))
	l.total = o.Steps
	if l.total == 0 {
		l.total = max(1, int(o.Epochs*float64(perEpoch)+0.5))
	}
	l.sched = Schedule{Peak: o.LR, Warmup: int(o.Warmup * float64(l.total)), Total: l.total, MinRatio: o.MinLR}
	opt := newClippedAdamW(l.sched, o.WeightDecay, o.ClipNorm)
	net := l.b.Net
	l.trainer = gtrain.NewTrainer(env.Backend, l.b.Ctx,
		func(c *mlctx.Context, _ any, in []*Node) []*Node { return []*Node{net.Logits(c, in)} },
		func(labels, preds []*Node) *Node {
			loss := SurvivalLoss(preds[0], labels[0], labels[1], labels[2])
			if o.RankWeight > 0 {
				rank := SiblingRankLoss(preds[0], labels[0], labels[1], labels[2])
				loss = Add(loss, MulScalar(rank, o.RankWeight))
			}
			return loss
		},
		opt, nil, nil)
	if o.Accum > 1 {
		if err := l.trainer.AccumulateGradients(o.Accum); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	if resumed != nil {
		if err := loadState(filepath.Join(env.Out, lastDir), l.b.Ctx); err != nil {
			return nil, fmt.Errorf("train: resume: %w", err)
		}
		l.step, l.epoch, l.inEpoch = resumed.Step, resumed.Epoch, resumed.InEpoch
		l.best, l.run.BestStep, l.run.History = resumed.Best, resumed.BestStep, resumed.History
		if resumed.BestET <= 0 {
			l.best.ET = -1
		}
		l.start = l.start.Add(-time.Duration(resumed.Seconds * float64(time.Second)))
		log.Info("train: resuming", "step", l.step, "epoch", l.epoch, "examples_into_epoch", l.inEpoch)
	}
	log.Info("train", "arch", l.b.Meta.Arch, "examples", st.Groups, "edges", st.Edges, "trees_with_fix", st.TreesWithFix,
		"steps", l.total, "steps_per_epoch", perEpoch, "batch", o.Batch, "accum", o.Accum)
	return l, nil
}

// saveLast writes the resumable state of the run.
func (l *trainLoop) saveLast() error {
	s := &state{Step: l.step, Epoch: l.epoch, InEpoch: l.inEpoch, Options: l.o, Stats: l.st, BestET: l.best.ET,
		BestStep: l.run.BestStep, Best: l.best, History: l.run.History, Seconds: time.Since(l.start).Seconds()}
	return writeState(filepath.Join(l.env.Out, lastDir), l.b, s, l.env, l.run)
}

// validate replays the current model on the validation split.
func (l *trainLoop) validate(ctx context.Context) (*Validation, error) {
	sc, err := l.b.Scorer(l.env.Backend, 64)
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	v, err := Validate(ctx, sc, l.env.Val)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// loop runs the steps; done is false when it stopped early (env.stopAfter)
// or failed. A cancelled ctx saves the state to resume from.
func (l *trainLoop) loop(ctx context.Context) (done bool, err error) {
	l.pipe = newPipeline(ctx, l.env.Train, l.b.Net, l.encode, l.o, l.epoch, l.inEpoch)
	defer func() { l.pipe.close() }()
	lastReport := time.Now()
	for l.step < l.total {
		if err := ctx.Err(); err != nil {
			_ = l.saveLast()
			return false, corpus.FieldErrorf("train: %w (state saved at step %d; {Resume} continues)", err, l.step)
		}
		loss, edges, err := l.microSteps(ctx)
		if err != nil {
			return false, err
		}
		l.step++
		rate := float64(edges) / time.Since(lastReport).Seconds()
		lastReport = time.Now()
		if err := l.record(ctx, loss, rate); err != nil {
			return false, err
		}
		if l.env.stopAfter > 0 && l.step >= l.env.stopAfter {
			return false, nil
		}
	}
	return true, nil
}

// microSteps runs the o.Accum micro-batches of one step, opening the next
// epoch at the end of one, and returns their mean loss and their edges.
func (l *trainLoop) microSteps(ctx context.Context) (loss float64, edges int, err error) {
	var lossSum float64
	lossN := 0
	for micro := 0; micro < l.o.Accum; micro++ {
		mb, err := l.pipe.next()
		if errors.Is(err, io.EOF) { // epoch boundary
			l.epoch++
			l.inEpoch = 0
			l.pipe.close()
			l.pipe = newPipeline(ctx, l.env.Train, l.b.Net, l.encode, l.o, l.epoch, 0)
			if mb, err = l.pipe.next(); err != nil {
				return 0, 0, fmt.Errorf("train: epoch %d: %w", l.epoch, err)
			}
		} else if err != nil {
			return 0, 0, fmt.Errorf("train: %w", err)
		}
		metrics, err := l.trainer.TrainStep(nil, mb.inputs, mb.labels)
		if err != nil {
			return 0, 0, fmt.Errorf("train: step %d: %w", l.step, err)
		}
		v, err := tensors.CopyFlatData[float32](metrics[0])
		if err != nil {
			return 0, 0, fmt.Errorf("train: step %d: %w", l.step, err)
		}
		lossSum += float64(v[0])
		lossN++
		l.inEpoch += int64(mb.groups)
		edges += mb.edges
	}
	return lossSum / float64(max(lossN, 1)), edges, nil
}

// record logs the step just taken, validates when due (keeping the best
// checkpoint), reports progress and saves the state after a validation
// and at the end.
func (l *trainLoop) record(ctx context.Context, loss, rate float64) error {
	step, total := l.step, l.total
	el := time.Since(l.start)
	rec := Record{Step: step, Epoch: l.epoch, Loss: loss, LR: l.sched.At(step - 1), EdgesPerSec: rate, Seconds: el.Seconds()}
	p := Progress{Step: step, Total: total, Epoch: l.epoch, Loss: loss, EdgesPerSec: rate, Elapsed: el,
		ETA: time.Duration(float64(el) / float64(step) * float64(total-step)), BestET: l.best.ET}
	if (l.o.ValEvery > 0 && step%l.o.ValEvery == 0) || step == total {
		v, err := l.validate(ctx)
		if err != nil {
			return fmt.Errorf("train: step %d: %w", step, err)
		}
		rec.Val, p.Val = v, v
		if l.best.ET < 0 || v.ET < l.best.ET {
			l.best, l.run.BestStep = *v, step
			if err := saveBest(l.b, l.env, l.run, l.o, l.st); err != nil {
				return err
			}
		}
		p.BestET = l.best.ET
		l.log.Info("train: validation", "step", step, "val_et", fmt.Sprintf("%.3f", v.ET), "best_et", fmt.Sprintf("%.3f", l.best.ET), "best_step", l.run.BestStep)
	}
	l.run.History = append(l.run.History, rec)
	if l.env.Progress != nil {
		l.env.Progress(p)
	}
	if p.Val != nil || step == total {
		if err := l.saveLast(); err != nil {
			return err
		}
		if err := writeLog(l.env.Out, l.run.History); err != nil {
			return err
		}
	}
	return nil
}

// finish writes the log and plot of a completed run, replays the best
// checkpoint on the test split (env.Test) and records the run with it.
func (l *trainLoop) finish(ctx context.Context) (*Run, error) {
	run, env := l.run, l.env
	run.Steps = l.step
	best := l.best
	run.Best = &best
	run.Seconds = time.Since(l.start).Seconds()
	if err := writeLog(env.Out, run.History); err != nil {
		return run, err
	}
	if err := writePlot(filepath.Join(env.Out, "training.svg"), run.History); err != nil {
		l.log.Warn("train: plot", "err", err)
	}
	run.Command = env.Command
	if env.Test != nil {
		best, err := model.LoadCheckpoint(env.Out)
		if err != nil {
			return run, fmt.Errorf("train: test replay: %w", err)
		}
		sc, err := best.Scorer(env.Backend, 64)
		if err != nil {
			return run, err
		}
		v, err := Validate(ctx, sc, env.Test)
		sc.Close()
		if err != nil {
			return run, fmt.Errorf("train: test replay: %w", err)
		}
		run.Test = &v
		l.log.Info("train: test split", "et", fmt.Sprintf("%.3f", v.ET), "trees", v.Trees)
	}
	// The best checkpoint's record gets the whole run.
	if err := finishBest(env.Out, run); err != nil {
		return run, err
	}
	return run, nil
}

// buildModel makes the model of o and fits its statistics on the training split.
func buildModel(ctx context.Context, o Options, env Env, log *slog.Logger) (*model.Bundle, Stats, *foldLMs, error) {
	if o.Arch == "small" {
		lm, err := model.NewNGram(o.Bag.NGramOrder, o.Bag.NGramBits)
		if err != nil {
			return nil, Stats{}, nil, err
		}
		b, err := model.NewBag(o.Bag, o.MaxDepth+1, o.HeadHidden, lm, int64(o.Seed))
		if err != nil {
			return nil, Stats{}, nil, err
		}
		oof, err := fitFoldLMs(ctx, env.Train, o.Bag.NGramOrder, o.Bag.NGramBits)
		if err != nil {
			return nil, Stats{}, nil, err
		}
		st, err := prepare(ctx, env.Train, lm, b.Net.(*model.BagNet), oof, 1<<20)
		if err != nil {
			return nil, st, nil, err
		}
		log.Info("train: fitted", "fix_programs", st.FixPrograms, "ngram_vocab", lm.Vocab, "out_of_fold_ngrams", len(oof.lms))
		if err := model.SetFeatureStats(b.Ctx, st.FeatureMean, st.FeatureStd); err != nil {
			return nil, st, nil, err
		}
		if err := model.SetDenseStats(b.Ctx, o.Bag, st.DenseMean, st.DenseStd); err != nil {
			return nil, st, nil, err
		}
		return b, st, oof, nil
	}
	if env.BuildQwen3 == nil {
		return nil, Stats{}, nil, fmt.Errorf("train: arch %q needs a Qwen3 builder", o.Arch)
	}
	st, err := prepare(ctx, env.Train, nil, nil, nil, 0)
	if err != nil {
		return nil, st, nil, err
	}
	b, err := env.BuildQwen3(o, st)
	if err != nil {
		return nil, st, nil, err
	}
	if err := model.SetFeatureStats(b.Ctx, st.FeatureMean, st.FeatureStd); err != nil {
		return nil, st, nil, err
	}
	return b, st, nil, nil
}

// encoder returns how the loop encodes a training group: the bag model
// with the n-gram of the group's task's fold (out of fold), any other
// model as it encodes for scoring.
func encoder(net model.Net, oof *foldLMs) func(Group) (model.Encoded, error) {
	if bag, ok := net.(*model.BagNet); ok && oof != nil {
		return func(g Group) (model.Encoded, error) { return bag.EncodeWithLM(g.Edges, oof.of(g.TaskID)) }
	}
	return func(g Group) (model.Encoded, error) { return net.Encode(g.Edges) }
}

// microBatch is one padded training batch with its labels.
type microBatch struct {
	inputs, labels []*tensors.Tensor
	groups, edges  int
}

// pipeline reads groups of one epoch, encodes them on several goroutines
// ahead of the model and lays them out as micro-batches, in a fixed order.
// Its one producer goroutine stays hand-written: it streams ordered batches
// through a channel and stops on the consumer's cancel, which is not
// bounded work; only the encoding of a batch is (an errgroup).
type pipeline struct {
	stream *Stream
	ch     chan mbResult
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type mbResult struct {
	mb  microBatch
	err error
}

func newPipeline(ctx context.Context, src Source, net model.Net, encode func(Group) (model.Encoded, error), o Options, epoch int, skip int64) *pipeline {
	ctx, cancel := context.WithCancel(ctx)
	p := &pipeline{stream: NewStream(ctx, src, o.Seed, epoch, o.Shuffle), ch: make(chan mbResult, 4), cancel: cancel}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(p.ch)
		send := func(r mbResult) bool {
			select {
			case p.ch <- r:
				return true
			case <-ctx.Done():
				return false
			}
		}
		if err := p.stream.Skip(skip); err != nil && !errors.Is(err, io.EOF) {
			send(mbResult{err: err})
			return
		}
		workers := max(1, runtime.NumCPU())
		for {
			var groups []Group
			for len(groups) < o.Batch {
				g, err := p.stream.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					send(mbResult{err: err})
					return
				}
				groups = append(groups, g)
			}
			if len(groups) == 0 {
				return
			}
			enc := make([]model.Encoded, len(groups))
			errs := make([]error, len(groups))
			// Every group is encoded and every error joined in group
			// order, so the goroutines keep their errors.
			var g errgroup.Group
			g.SetLimit(workers)
			for i := range groups {
				g.Go(func() error {
					enc[i], errs[i] = encode(groups[i])
					return nil
				})
			}
			_ = g.Wait()
			if err := errors.Join(errs...); err != nil {
				send(mbResult{err: err})
				return
			}
			mb, err := layout(net, groups, enc, o.Batch)
			if !send(mbResult{mb: mb, err: err}) || err != nil {
				return
			}
			if len(groups) < o.Batch {
				return
			}
		}
	}()
	return p
}

// next returns the next micro-batch or io.EOF at the end of the epoch.
func (p *pipeline) next() (microBatch, error) {
	r, ok := <-p.ch
	if !ok {
		return microBatch{}, io.EOF
	}
	return r.mb, r.err
}

func (p *pipeline) close() {
	p.cancel()
	for range p.ch {
	}
	p.wg.Wait()
	p.stream.Close()
}

// layout pads groups into one batch of exactly rows rows (so the graph is
// compiled once) and builds the label tensors t, b, mask [rows, K].
func layout(net model.Net, groups []Group, enc []model.Encoded, rows int) (microBatch, error) {
	batches, err := net.Batches(enc, rows)
	if err != nil {
		return microBatch{}, err
	}
	if len(batches) != 1 {
		return microBatch{}, fmt.Errorf("train: %d groups laid out in %d batches, want 1 (a parent with more edits than a row holds?)", len(groups), len(batches))
	}
	bt := batches[0]
	if bt.Rows < rows {
		if bt, err = padRows(bt, rows); err != nil {
			return microBatch{}, err
		}
	}
	t := make([]int32, bt.Rows*bt.K)
	bb := make([]int32, bt.Rows*bt.K)
	mask := make([]float32, bt.Rows*bt.K)
	edges := 0
	for i, sl := range bt.Slots {
		if sl[0] < 0 {
			continue
		}
		g := &groups[sl[0]]
		t[i], bb[i], mask[i] = g.T[sl[1]], g.B[sl[1]], 1
		edges++
	}
	return microBatch{inputs: bt.Inputs, groups: len(groups), edges: edges, labels: []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(t, bt.Rows, bt.K),
		tensors.FromFlatDataAndDimensions(bb, bt.Rows, bt.K),
		tensors.FromFlatDataAndDimensions(mask, bt.Rows, bt.K),
	}}, nil
}

// padRows grows every input of b along its first axis to rows rows with
// zeros (padding rows have masked labels).
func padRows(b model.Batch, rows int) (model.Batch, error) {
	out := b
	out.Inputs = make([]*tensors.Tensor, len(b.Inputs))
	for i, in := range b.Inputs {
		dims := slices.Clone(in.Shape().Dimensions)
		dims[0] = rows
		t := tensors.FromShape(shapes.Make(in.DType(), dims...))
		var inner error
		err := in.ConstBytes(func(src []byte) {
			inner = t.MutableBytes(func(dst []byte) { copy(dst, src) })
		})
		if err = errors.Join(err, inner); err != nil {
			return b, fmt.Errorf("pad batch: %w", err)
		}
		out.Inputs[i] = t
	}
	out.Slots = append(slices.Clone(b.Slots), make([][2]int32, (rows-b.Rows)*b.K)...)
	for i := b.Rows * b.K; i < len(out.Slots); i++ {
		out.Slots[i] = [2]int32{-1, -1}
	}
	out.Rows = rows
	return out, nil
}
