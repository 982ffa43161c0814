package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"triage/model"
	"triage/train"
)

// trainFlags are the flags train and cv share (and train's own).
type trainFlags struct {
	json bool // the global --json
	train.Setup
	resume, noProgress, recordTest bool
}

func newTrainCmd() *cobra.Command {
	f := &trainFlags{}
	c := &cobra.Command{
		Use:   "train",
		Short: "Train the priority model on a corpus (discrete-survival loss, validation by replay)",
		Long: `train fits the priority model on the train split of one or more corpus
folders. Examples are the expanded edits of one parent node, from trees that
hold a fix (censored edges included), labelled with their solve distance;
the loss is the discrete-survival NLL (observed t ≤ b: −log p_t; censored:
−log(1 − F(b))). AdamW with warm-up + cosine decay, global-norm gradient
clipping and gradient accumulation. Every --val-every steps the learned
policy is replayed on the val split and its E[T] (mean expansions to the
first fix) recorded; the best checkpoint by E[T] is kept in --out.

Architectures:
  small        the CPU model (trains in minutes on 2 cores): hashed word and
               code-token features of the edge's texts plus relational
               features of the edit against the parent program and the
               failures, pooled → encoder → the shared head
  0.6b         Qwen3-0.6B's shape; with --base a Hugging Face Qwen3 folder
               whose decoder stays frozen (LoRA r 8, α 16 on q/k/v/o and the
               head train); without --base every weight trains from random
               initialization
  CONFIG.json  any Qwen3 config.json (same rules)

Output (--out): checkpoint.json + weights (docs/checkpoint.md), metrics.jsonl,
training.svg (loss and validation E[T]); last/ holds the resumable state
(weights, optimizer, data position): --resume continues an interrupted run
with the same data order. On a GPU use --backend xla:<plugin> --dtype bf16.`,
		Example: `  triage train --corpus out/corpus --out ckpt/
  triage train --corpus c1,c2 --arch small --epochs 8 --seed 3 --out ckpt/
  triage train --corpus out/corpus --out ckpt/ --resume       # after an interruption
  triage train --corpus out/corpus --arch 0.6b --base Qwen3-0.6B-Base/ --backend xla:cuda --dtype bf16 --batch 32 --out ckpt/
  triage train --corpus out/corpus --no-edit-text --out ablation-no-edit/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.json = jsonFlag(cmd)
			return runTrain(cmd.Context(), f)
		},
	}
	addTrainFlags(c, f)
	fl := c.Flags()
	fl.BoolVar(&f.resume, "resume", false, "continue the interrupted run in --out")
	fl.BoolVar(&f.recordTest, "record-test", false, "after training, replay the best checkpoint on the test split and record its E[T] in checkpoint.json (nothing is chosen on it)")
	return c
}

// addTrainFlags adds the flags train and cv share.
func addTrainFlags(c *cobra.Command, f *trainFlags) {
	d, o := train.DefaultOptions(), &f.Options
	*o = d
	fl := c.Flags()
	fl.StringSliceVar(&f.Corpus, "corpus", nil, "corpus folders (comma-separated or repeated; required)")
	fl.StringVar(&o.Arch, "arch", d.Arch, "architecture: small, 0.6b or a Qwen3 config.json")
	fl.StringVar(&o.Base, "base", "", "Hugging Face Qwen3 folder: frozen decoder, train LoRA + head")
	fl.StringVar(&f.Out, "out", "", "checkpoint folder (required)")
	fl.StringVar(&f.Backend, "backend", model.DefaultBackend, "go (CPU), xla:cuda, xla:cpu or xla:/path/to/pjrt_plugin.so")
	fl.StringVar(&o.DType, "dtype", d.DType, "Qwen3 decoder dtype: f32 or bf16")
	fl.IntVar(&o.Batch, "batch", d.Batch, "examples (parents) per micro-batch")
	fl.IntVar(&o.Accum, "accum", d.Accum, "micro-batches per optimizer step (gradient accumulation)")
	fl.IntVar(&o.Steps, "steps", 0, "optimizer steps (overrides --epochs)")
	fl.Float64Var(&o.Epochs, "epochs", d.Epochs, "passes over the train split")
	fl.Float64Var(&o.LR, "lr", d.LR, "peak learning rate")
	fl.Float64Var(&o.Warmup, "warmup", d.Warmup, "fraction of steps of linear warm-up")
	fl.Float64Var(&o.MinLR, "min-lr", d.MinLR, "final learning rate as a fraction of --lr (cosine decay)")
	fl.Float64Var(&o.WeightDecay, "weight-decay", d.WeightDecay, "AdamW decoupled weight decay")
	fl.Float64Var(&o.ClipNorm, "clip", d.ClipNorm, "global gradient-norm clip (0: none)")
	fl.Uint64Var(&o.Seed, "seed", d.Seed, "seed of initialization and data order")
	fl.IntVar(&o.ValEvery, "val-every", d.ValEvery, "optimizer steps between validations (0: only at the end)")
	fl.BoolVar(&f.noProgress, "no-progress", false, "no progress bar, even on a terminal")
	fl.BoolVar(&o.Inputs.NoParentText, "no-parent-text", false, "ablation: the model does not read the parent's feedback and diagnosis")
	fl.BoolVar(&o.Inputs.NoEditText, "no-edit-text", false, "ablation: the model does not read the edit's text")
	fl.BoolVar(&o.Inputs.NoProgram, "no-program", false, "ablation (small): the model does not read the parent program")
	fl.StringArrayVar(&f.Sets, "set", nil, "architecture knob key=value (repeatable): bag.buckets, bag.embed, bag.hidden,\nbag.max_parent_ids, bag.max_edit_ids, bag.ngram_order, bag.ngram_bits, head_hidden,\nshuffle, max_depth, limits.feedback, limits.diagnosis, limits.edit")
}

func runTrain(ctx context.Context, f *trainFlags) error {
	run, err := train.RunCommand(ctx, train.RunConfig{Setup: f.Setup, Resume: f.resume, RecordTest: f.recordTest,
		Progress: !f.noProgress && term.IsTerminal(int(os.Stderr.Fd())), Versions: trainVersions(), Command: commandLine()})
	if err != nil {
		return err
	}
	if f.json {
		return printJSON(os.Stdout, run)
	}
	return train.WriteSummary(os.Stdout, run)
}

// buildCommit and buildModified are set by the Makefile's -ldflags
// (-X main.buildCommit=... -X main.buildModified=true|false) for builds that
// carry no VCS stamp (GOFLAGS=-buildvcs=false, a worktree Go cannot read).
var buildCommit, buildModified string

// trainVersions are the versions a checkpoint records.
func trainVersions() map[string]string { return train.Versions(buildCommit, buildModified) }

// commandLine is this process's command line, for the record.
func commandLine() string { return train.CommandLine(os.Args[1:]) }
