package main

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"triage/model"
	"triage/policy"
	"triage/search/eval"
	"triage/search/eval/report"
	"triage/train"
	"triage/train/experiment"
)

// trainFlags are the flags train and cv share (and train's own).
type trainFlags struct {
	json bool // the global --json
	train.Setup
	sets                           []string
	resume, noProgress, recordTest bool
}

// trainFlagNames are the flags of train.Setup's and train.Options' fields
// that errors name.
var trainFlagNames = commonFlags.with(flagNames{"Options.Epochs": "--epochs", "Options.Steps": "--steps",
	"Options.Arch": "--arch", "Options.Base": "--base", "Arch": "--arch", "Base": "--base",
	"Inputs.NoProgram": "--no-program", "Inputs.NoWords": "--no-words", "Inputs.Siblings": "--siblings",
	"Inputs.NoParentText": "--no-parent-text", "Inputs.NoEditText": "--no-edit-text", "Inputs.Prior": "--prior", "Resume": "--resume",
	"LODO.HybridGrid": "--hybrid-grid"})

// setup returns the training setup with the --set knobs applied to its
// options.
func (f *trainFlags) setup() (train.Setup, error) {
	s := f.Setup
	if err := s.Options.ApplySets(f.sets); err != nil {
		return s, badInput("--set: %v", err)
	}
	return s, nil
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
	fl.BoolVar(&o.Inputs.NoWords, "no-words", false, "bag: no hashed words or code tokens of any text, only the edit's kind and its relational features (what transfers across task sets)")
	fl.Float64Var(&o.RankWeight, "rank-weight", 0, "weight of a ranking term over each parent's edits added to the survival loss (0: none)")
	fl.BoolVar(&o.Inputs.NoLength, "no-length", false, "the model does not read the parent program's raw length (task sources differ in it)")
	fl.BoolVar(&o.Inputs.Prior, "prior", false, "bag: also what the embedded code prior (a model of Python fitted outside every corpus, docs/prior.md) says of each edit: the change in log-probability of its lines and of the program, and its rank among its siblings by it")
	fl.BoolVar(&o.Inputs.Siblings, "siblings", false, "bag: also where the edit ranks among its parent's edits (by the proposer's score, naturalness, the suspicion of its line) and the parent's test counts")
	fl.StringArrayVar(&f.sets, "set", nil, "architecture knob key=value (repeatable): bag.buckets, bag.embed, bag.hidden,\nbag.max_parent_ids, bag.max_edit_ids, bag.ngram_order, bag.ngram_bits, head_hidden,\nshuffle, max_depth, limits.feedback, limits.diagnosis, limits.edit")
}

func runTrain(ctx context.Context, f *trainFlags) error {
	setup, err := f.setup()
	if err != nil {
		return err
	}
	run, err := train.RunCommand(ctx, train.RunConfig{Setup: setup, Resume: f.resume, RecordTest: f.recordTest,
		Progress: progressBar(f.noProgress), Versions: trainVersions(), Command: commandLine()})
	if err != nil {
		return trainFlagNames.flagged(err)
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

// cvLong is cv's long help.
var cvLong = `cv splits the corpus's tasks into --folds folds (by a seeded hash, so every
tree of a task lands in one fold). For each fold it trains a model on the
other folds' trees outside the val split, picks the checkpoint by E[T] on
their val-split trees, and replays that model and every baseline on the
held-out fold's trees only. Outcomes of all folds are pooled per policy:
E[T], tokens, S(B), C(B), AUSC(B) with standard errors from a bootstrap
clustered by task. A bundled test split has 15 tasks, too few to separate
policies; cross-validation by task uses every task once as held-out data.

Training flags are those of 'triage train'; --out holds fold-N/ checkpoints.
--ablations also scores each fold's model by p1 alone and by ranking within
each depth (CodeTriage Table 1).

--lodo is leave-one-dataset-out, the cross-dataset judge: --corpus names
each dataset (NAME=DIR[,DIR...], repeated). Each dataset is held out in
turn: a model trains on the union of all the others' train splits
(checkpoint chosen on their val splits), every baseline and the hybrid are
tuned on the same val splits, and learned, hybrid and the tuned baselines
are scored on the held-out dataset's test split (--all-splits: every
split), one model per --train-seeds seed, with the spread over seeds, the
paired comparison against every baseline (95 % interval clustered by task,
and the smallest ratio those trees could tell from 1 at 80 % power), and a
pooled row over the directions. --lodo-pairs trains on each dataset alone
and scores on each other one (every ordered pair; with two datasets the
two are the same).`

func newCVCmd() *cobra.Command {
	f := &trainFlags{}
	var folds, seeds, resamples int
	var foldSeed uint64
	var params, budgets, jsonFile string
	var ablations bool
	var lodo lodoFlags
	c := &cobra.Command{
		Use:   "cv",
		Short: "Cross-validate the learned policy by task: train per fold, score held-out tasks beside every baseline",
		Long:  cvLong,
		Example: `  triage cv --corpus out/full --folds 5 --out cv/
  triage cv --corpus out/full --folds 5 --params tuned.json --json-file cv.json --out cv/
  triage cv --lodo --corpus bundled=out/b1,out/b5 --corpus mbpp=out/m --train-seeds 1,2,3 --out lodo/
  triage cv --lodo --all-splits --corpus bundled=out/b --corpus mbpp=out/m --corpus exercism=out/e \
    --corpus thealgorithms=out/t --train-seeds 1,2,3 --out lodo/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if folds < 2 && !lodo.on {
				return badInput("--folds must be ≥ 2")
			}
			bs, ps, err := checkReplay(seeds, resamples, budgets, params)
			if err != nil {
				return err
			}
			if lodo.on {
				return runLODO(cmd, f, &lodo, ps, seeds, resamples, bs, jsonFile)
			}
			setup, err := f.setup()
			if err != nil {
				return err
			}
			res, err := experiment.CVCommand(cmd.Context(), experiment.CVConfig{Setup: setup, Folds: folds, FoldSeed: foldSeed,
				Params: ps, Seeds: seeds, Resamples: resamples, Budgets: bs, Ablations: ablations,
				Progress: progressBar(f.noProgress), Versions: trainVersions(), Resume: f.resume})
			if err != nil {
				return trainFlagNames.flagged(err)
			}
			js := map[string]any{"report": report.JSON(res.Report), "folds": res.Folds, "paired": res.Paired}
			if jsonFile != "" {
				if err := report.WriteJSONFile(jsonFile, map[string]any{"report": js["report"], "folds": res.Folds, "paired": res.Paired, "outcomes": res.Outcomes}); err != nil {
					return err
				}
			}
			return printResult(cmd, js, res.WriteText)
		},
	}
	addTrainFlags(c, f)
	fl := c.Flags()
	fl.IntVar(&folds, "folds", 5, "number of folds of tasks")
	fl.Uint64Var(&foldSeed, "fold-seed", 1, "seed of the assignment of tasks to folds")
	fl.StringVar(&params, "params", "", "baseline hyperparameters (JSON from 'triage tune')")
	fl.StringVar(&budgets, "budgets", "4,8,16,36", budgetsUsage)
	fl.IntVar(&seeds, "seeds", 10, "seeds per stochastic baseline")
	fl.IntVar(&resamples, "bootstrap", 1000, "bootstrap resamples of tasks")
	fl.StringVar(&jsonFile, "json-file", "", "also write the JSON result to this file")
	fl.BoolVar(&ablations, "ablations", false, "also score each fold's model by p1 alone and within depths")
	fl.BoolVar(&f.resume, "resume", false, "continue an interrupted cv in --out: each model whose folder holds saved state continues (a finished one is reloaded, not retrained), the others train")
	lodo.register(c)
	return c
}

// lodoFlags are the flags of `triage cv --lodo`.
type lodoFlags struct {
	on, pairs, allSplits, noHybrid, noEnsemble bool
	trainSeeds, hybridGrid                     string
}

func (l *lodoFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.BoolVar(&l.on, "lodo", false, "leave one dataset out: --corpus NAME=DIR[,DIR...] per dataset; hold each out, train on the union of the others")
	fl.BoolVar(&l.pairs, "lodo-pairs", false, "with --lodo: every ordered pair of datasets (train on one, score on another) instead")
	fl.StringVar(&l.trainSeeds, "train-seeds", "", "with --lodo: training seeds, one model each, e.g. 1,2,3 (default: --seed)")
	fl.BoolVar(&l.allSplits, "all-splits", false, "with --lodo: score every split of the held-out dataset, not only its test split")
	fl.BoolVar(&l.noHybrid, "no-hybrid", false, "with --lodo: leave the hybrid policy out")
	fl.BoolVar(&l.noEnsemble, "no-ensemble", false, "with --lodo and several --train-seeds: leave out the ensemble (the mean of the seeds' models)")
	fl.StringVar(&l.hybridGrid, "hybrid-grid", experiment.DefaultHybridGrid, "with --lodo: grid the hybrid is tuned over on the training dataset's val split")
}

// checkReplay checks the replay flags cv and cv --lodo share (--seeds,
// --bootstrap, --budgets, --params) and returns the budgets and the params
// file's hyperparameters. A bad value is bad input naming its flag.
func checkReplay(seeds, resamples int, budgets, paramsFile string) ([]int, policy.ParamSet, error) {
	if seeds < 1 || resamples < 1 {
		return nil, nil, badInput("--seeds and --bootstrap must be ≥ 1")
	}
	bs, err := parseBudgets("budgets", budgets)
	if err != nil {
		return nil, nil, err
	}
	ps, err := eval.LoadParams(paramsFile)
	return bs, ps, flagNames{"Params": "--params"}.flagged(err)
}

// parseDatasets reads the --corpus entries of `cv --lodo`: NAME=DIR starts
// a dataset, a bare DIR adds a folder to the dataset before it (so
// `--corpus a=x,y --corpus b=z` is two datasets).
func parseDatasets(entries []string) (names []string, dirs [][]string, err error) {
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		name, dir, named := strings.Cut(e, "=")
		switch {
		case named && (name == "" || dir == ""):
			return nil, nil, badInput("--corpus %q: want NAME=DIR", e)
		case named:
			if slices.Contains(names, name) {
				return nil, nil, badInput("--corpus: dataset %s given twice", name)
			}
			names, dirs = append(names, name), append(dirs, []string{dir})
		case len(names) == 0:
			return nil, nil, badInput("--corpus %q: with --lodo the first folder needs a dataset name, NAME=DIR", e)
		default:
			dirs[len(dirs)-1] = append(dirs[len(dirs)-1], e)
		}
	}
	if len(names) < 2 {
		return nil, nil, badInput("--lodo needs at least two datasets (--corpus NAME=DIR,... per dataset), got %d", len(names))
	}
	return names, dirs, nil
}

// lodoConfig checks the flags of `triage cv --lodo` (the datasets, no
// --params, the training seeds, the hybrid grid) and returns its run.
func lodoConfig(f *trainFlags, l *lodoFlags, ps policy.ParamSet, seeds, resamples int, budgets []int) (experiment.LODOConfig, error) {
	c := experiment.LODOConfig{LODO: experiment.LODOOptions{HybridGrid: l.hybridGrid, NoHybrid: l.noHybrid, NoEnsemble: l.noEnsemble,
		AllSplits: l.allSplits, Pairs: l.pairs, Seeds: seeds, Budgets: budgets, Resamples: resamples},
		Versions: trainVersions(), Command: commandLine(), Resume: f.resume}
	var err error
	if c.Names, c.Folders, err = parseDatasets(f.Corpus); err != nil {
		return c, err
	}
	if len(ps) > 0 {
		return c, badInput("--params: with --lodo every baseline is tuned on the training dataset's val split")
	}
	if l.trainSeeds != "" {
		seeds, err := parseInts("train-seeds", l.trainSeeds)
		if err != nil {
			return c, err
		}
		for _, s := range seeds {
			c.LODO.TrainSeeds = append(c.LODO.TrainSeeds, uint64(s))
		}
	}
	if _, err := policy.ParseGrid(l.hybridGrid); err != nil {
		return c, badInput("--hybrid-grid: %v", err)
	}
	c.Setup, err = f.setup()
	return c, err
}

// runLODO is `triage cv --lodo`.
func runLODO(cmd *cobra.Command, f *trainFlags, l *lodoFlags, ps policy.ParamSet, seeds, resamples int, budgets []int, jsonFile string) error {
	c, err := lodoConfig(f, l, ps, seeds, resamples, budgets)
	if err != nil {
		return err
	}
	res, err := experiment.LODOCommand(cmd.Context(), c)
	if err != nil {
		return trainFlagNames.flagged(err)
	}
	if jsonFile != "" {
		if err := report.WriteJSONFile(jsonFile, res); err != nil {
			return err
		}
	}
	return printResult(cmd, res, func(w io.Writer) error { return experiment.WriteLODOVerdict(w, res.Directions, res.Pooled, budgets) })
}
