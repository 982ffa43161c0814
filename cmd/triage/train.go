package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"triage/corpus"
	"triage/model"
	"triage/train"
)

type trainFlags struct {
	json                      bool // the global --json
	corpus                    []string
	arch, base, out, backend  string
	dtype                     string
	batch, accum, steps       int
	epochs, lr, warmup, minLR float64
	weightDecay, clip         float64
	seed                      uint64
	valEvery                  int
	resume, noProgress        bool
	recordTest                bool
	noParent, noEdit, noProg  bool
	set                       []string
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
	d := train.DefaultOptions()
	fl := c.Flags()
	fl.StringSliceVar(&f.corpus, "corpus", nil, "corpus folders (comma-separated or repeated; required)")
	fl.StringVar(&f.arch, "arch", d.Arch, "architecture: small, 0.6b or a Qwen3 config.json")
	fl.StringVar(&f.base, "base", "", "Hugging Face Qwen3 folder: frozen decoder, train LoRA + head")
	fl.StringVar(&f.out, "out", "", "checkpoint folder (required)")
	fl.StringVar(&f.backend, "backend", model.DefaultBackend, "go (CPU), xla:cuda, xla:cpu or xla:/path/to/pjrt_plugin.so")
	fl.StringVar(&f.dtype, "dtype", d.DType, "Qwen3 decoder dtype: f32 or bf16")
	fl.IntVar(&f.batch, "batch", d.Batch, "examples (parents) per micro-batch")
	fl.IntVar(&f.accum, "accum", d.Accum, "micro-batches per optimizer step (gradient accumulation)")
	fl.IntVar(&f.steps, "steps", 0, "optimizer steps (overrides --epochs)")
	fl.Float64Var(&f.epochs, "epochs", d.Epochs, "passes over the train split")
	fl.Float64Var(&f.lr, "lr", d.LR, "peak learning rate")
	fl.Float64Var(&f.warmup, "warmup", d.Warmup, "fraction of steps of linear warm-up")
	fl.Float64Var(&f.minLR, "min-lr", d.MinLR, "final learning rate as a fraction of --lr (cosine decay)")
	fl.Float64Var(&f.weightDecay, "weight-decay", d.WeightDecay, "AdamW decoupled weight decay")
	fl.Float64Var(&f.clip, "clip", d.ClipNorm, "global gradient-norm clip (0: none)")
	fl.Uint64Var(&f.seed, "seed", d.Seed, "seed of initialization and data order")
	fl.IntVar(&f.valEvery, "val-every", d.ValEvery, "optimizer steps between validations (0: only at the end)")
	fl.BoolVar(&f.noProgress, "no-progress", false, "no progress bar, even on a terminal")
	fl.BoolVar(&f.noParent, "no-parent-text", false, "ablation: the model does not read the parent's feedback and diagnosis")
	fl.BoolVar(&f.noEdit, "no-edit-text", false, "ablation: the model does not read the edit's text")
	fl.BoolVar(&f.noProg, "no-program", false, "ablation (small): the model does not read the parent program")
	fl.StringArrayVar(&f.set, "set", nil, "architecture knob key=value (repeatable): bag.buckets, bag.embed, bag.hidden,\nbag.max_parent_ids, bag.max_edit_ids, bag.ngram_order, bag.ngram_bits, head_hidden,\nshuffle, max_depth, limits.feedback, limits.diagnosis, limits.edit")
}

func runTrain(ctx context.Context, f *trainFlags) error {
	dirs, o, be, err := trainSetup(f)
	if err != nil {
		return err
	}
	defer be.Finalize()
	sources, err := train.RecordSources(dirs)
	if err != nil {
		return err
	}
	env := train.Env{
		Train:   train.ShardSource{Dirs: dirs, Split: corpus.SplitTrain},
		Val:     train.ShardSource{Dirs: dirs, Split: corpus.SplitVal},
		Backend: be, Out: f.out, Resume: f.resume, Sources: sources,
		Versions: trainVersions(), BuildQwen3: train.BuildQwen3, Command: commandLine(),
	}
	if f.recordTest {
		env.Test = train.ShardSource{Dirs: dirs, Split: corpus.SplitTest}
	}
	tty := !f.noProgress && term.IsTerminal(int(os.Stderr.Fd()))
	rep := train.NewReporter(tty)
	env.Progress = rep.Update
	run, err := train.Train(ctx, o, env)
	rep.Finish()
	if err != nil {
		if strings.Contains(err.Error(), "already holds") || strings.Contains(err.Error(), "options differ") ||
			strings.Contains(err.Error(), "no interrupted run") {
			return badInput("%v", err)
		}
		return err
	}
	if f.json {
		return printJSON(os.Stdout, run)
	}
	return train.WriteSummary(os.Stdout, run)
}

// trainSetup checks the shared flags and opens the backend.
func trainSetup(f *trainFlags) ([]string, train.Options, backends.Backend, error) {
	o := train.DefaultOptions()
	if len(f.corpus) == 0 {
		return nil, o, nil, badInput("--corpus is required")
	}
	if f.out == "" {
		return nil, o, nil, badInput("--out is required")
	}
	var dirs []string
	for _, d := range f.corpus {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if err := checkCorpusDirs("--corpus", []string{d}); err != nil {
			return nil, o, nil, err
		}
		if files, _ := corpus.ListShards(d); len(files) == 0 {
			return nil, o, nil, badInput("--corpus %s: no corpus shards (part-*.parquet)", d)
		}
		dirs = append(dirs, d)
	}
	o.Arch, o.Base, o.DType = f.arch, f.base, f.dtype
	o.Batch, o.Accum, o.Steps, o.Epochs = f.batch, f.accum, f.steps, f.epochs
	o.LR, o.Warmup, o.MinLR, o.WeightDecay, o.ClipNorm = f.lr, f.warmup, f.minLR, f.weightDecay, f.clip
	o.Seed, o.ValEvery = f.seed, f.valEvery
	o.Inputs = model.InputSet{NoParentText: f.noParent, NoEditText: f.noEdit, NoProgram: f.noProg}
	if err := o.ApplySets(f.set); err != nil {
		return nil, o, nil, badInput("--set: %v", err)
	}
	if f.steps == 0 && f.epochs <= 0 {
		return nil, o, nil, badInput("--epochs must be > 0 (or give --steps)")
	}
	if err := o.Validate(); err != nil {
		return nil, o, nil, badInput("%v", err)
	}
	if o.Arch != "small" && o.Arch != "0.6b" {
		if _, err := model.LoadConfig(o.Arch); err != nil {
			return nil, o, nil, badInput("--arch %s: want small, 0.6b or a Qwen3 config.json (%v)", o.Arch, err)
		}
	}
	if o.Base != "" {
		if _, err := os.Stat(filepath.Join(o.Base, "config.json")); err != nil {
			return nil, o, nil, badInput("--base %s: not a Hugging Face model folder: %v", o.Base, err)
		}
	}
	if _, err := model.BackendConfig(f.backend); err != nil {
		return nil, o, nil, badInput("%v", err)
	}
	be, err := model.NewBackend(f.backend)
	if err != nil {
		return nil, o, nil, err
	}
	return dirs, o, be, nil
}

// commandLine is this process's command line, for the record.
func commandLine() string {
	args := append([]string{"triage"}, os.Args[1:]...)
	for i, a := range args {
		if strings.ContainsAny(a, " \t\"'") {
			args[i] = strconv.Quote(a)
		}
	}
	return strings.Join(args, " ")
}

func trainVersions() map[string]string {
	v := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v["go"] = bi.GoVersion
		v["triage"] = bi.Main.Version
		for _, dep := range bi.Deps {
			if dep.Path == "github.com/gomlx/gomlx" {
				v["gomlx"] = dep.Version
			}
		}
	}
	r := currentRevision()
	v["triage_revision"], v["triage_revision_from"] = r.Commit, r.From
	if r.Modified != "" {
		v["triage_modified"] = r.Modified
	}
	return v
}
