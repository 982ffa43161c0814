package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/build"
	"triage/corpus/shard"
	"triage/corpus/taskset"
	"triage/search/proposer/mutate"
	"triage/search/sandbox"
)

// corpusBuildFlags are corpus build's flags: most of them bind to
// build.BuildOptions.
type corpusBuildFlags struct {
	build.BuildOptions
	json                 bool // the global --json
	tasks, shard         string
	splits               []string
	skipBadLines, noProg bool
	proposerFlags
	limitFlags    timeLimitFlags
	sandboxLimits sandbox.LimitsPolicy
}

// buildFlagNames are the flags of the build.BuildOptions fields that
// errors name.
var buildFlagNames = commonFlags.with(flagNames{"Config.K": "--k", "Config.D": "--depth", "Roots": "--roots",
	"TasksPerShard": "--tasks-per-shard", "ReferenceRuns": "--reference-runs", "Config.ProposerName": "--proposer",
	"Resume": "--resume"})

func newCorpusBuildCmd() *cobra.Command {
	f := &corpusBuildFlags{}
	c := &cobra.Command{
		Use:   "build",
		Short: "Build exhaustive repair trees of a task set into Parquet shards",
		Long: `Build grows one exhaustive repair tree per root of every task: each node's
k proposed edits are all revised and tested, down to depth D (root = 0);
fixes are leaves; identical programs reuse cached test results. Labels
(solve distance t, remaining depth b, censored) are computed per edge once a
tree is complete.

Before any tree, every task passes the input checks of 'triage tasks
validate': its reference, run --reference-runs times, passes every test;
its test file collects at least one test; each root it ships loads and
fails at least one test. A task that fails them is left out and listed
with its reason (in the summary and the manifest); --strict refuses the
task file instead (exit 2).

Time limits are per task, from the median of the reference's timed runs
(raised when the reference runs slower as its trees start; see below), so
a mutant stuck in a loop costs a fraction of a second. --test-timeout gives every
task one fixed limit instead. The limits, each task's limit, and every
setting that changes verdicts are in the manifest; --resume with another
value of any of them is refused (exit 2) with the setting named (a corpus
built with wall-clock limits: time_limits.clock, resume it with
--test-timeout-clock wall; one built with CPU limits on the whole count:
time_limits.harness_factor, resume it with --test-timeout-harness-factor 0).

` + timeLimitsHelp + `

Up to 4 trees per sandbox worker grow at once, siblings concurrently, and
shards are written off the critical path. The build ends with where the
time went (proposals, revisions, runs by status, coverage, writing, idle
workers); 'triage corpus stats' reports it from the manifest.

Output: zstd Parquet shards (part-NNNNN.parquet, one row per node, whole
trees of consecutive tasks), each written to a temporary name and renamed
when complete, and manifest.json (manifest-i-of-n.json with --shard) with
the shards, row counts, settings and versions. --resume skips complete
shards; rows are the same whether resumed or not. --shard i/n builds every
n-th shard so n machines (a Kubernetes Indexed Job, a Slurm array) can build
one corpus into one shared folder or into n folders; readers take the union.
--shard auto reads i and n from the job's environment and logs which it used
(scripts/deploy and docs/deploy.md have the manifests and scripts).`,
		Example: `  triage corpus build --tasks bundled --proposer mutate --k 3 --depth 4 --roots 5 --out corpus/
  triage corpus build --tasks tasks.jsonl --shard auto --out out/corpus --resume
  triage corpus build --tasks tasks.jsonl --strict --test-timeout-floor 1s --out c/
  triage corpus build --tasks bundled --split val,test --roots 1 --out out/evalonly
  triage corpus build --tasks tasks.jsonl --proposer openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B --out c/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.json = jsonFlag(cmd)
			return buildFlagNames.flagged(corpusBuildHandler(cmd.Context(), f))
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.tasks, "tasks", "", `tasks: a JSONL file or "bundled"`)
	fl.IntVar(&f.Config.K, "k", 3, "edits proposed per node")
	fl.IntVar(&f.Config.D, "depth", 4, "maximum depth D (root = 0)")
	fl.IntVar(&f.Roots, "roots", 5, "roots (trees) per task")
	fl.StringSliceVar(&f.splits, "split", []string{"all"}, "build the tasks of these splits: all, or a comma list of train, val, test")
	fl.StringVar(&f.Out, "out", "", "output folder")
	fl.IntVar(&f.Workers, "workers", 0, "sandbox workers (tests run at once; 4 trees per worker grow at once)"+workersZero)
	fl.Uint64Var(&f.Seed, "seed", 1, "seed of the mutate proposer and of root injection")
	fl.StringVar(&f.shard, "shard", "0/1", "build slice i of n (shards s with s mod n = i); auto or auto/n: i from a Kubernetes Indexed Job\n(JOB_COMPLETION_INDEX) or a Slurm array (SLURM_ARRAY_TASK_ID), n from JOB_COMPLETIONS or SLURM_ARRAY_TASK_COUNT")
	fl.BoolVar(&f.Resume, "resume", false, "skip shards that are already complete")
	fl.IntVar(&f.TasksPerShard, "tasks-per-shard", build.DefaultTasksPerShard, "consecutive tasks per shard file")
	fl.Int64Var(&f.RowsPerGroup, "rows-per-group", shard.DefaultRowsPerGroup, "rows per Parquet row group (bounds memory)")
	fl.BoolVar(&f.skipBadLines, "skip-bad-lines", false, skipBadLinesUsage)
	fl.BoolVar(&f.noProg, "no-progress", false, "no progress bar, even on a terminal")
	addProposerFlags(fl, &f.proposerFlags, "openai: sampling temperature", "openai: completions per diagnose call")
	f.limitFlags.register(fl, true)
	fl.IntVar(&f.ReferenceRuns, "reference-runs", build.DefaultReferenceRuns, "runs of each reference, timed (the median sets the limit)")
	fl.BoolVar(&f.Strict, "strict", false, "refuse the task file (exit 2) when a task fails the input checks, instead of leaving it out")
	addSandboxLimitsFlag(c, &f.sandboxLimits)
	return c
}

func corpusBuildHandler(ctx context.Context, f *corpusBuildFlags) error {
	f.Config.ProposerName = f.proposer
	if err := f.Validate(); err != nil {
		return err
	}
	limits, err := f.limitFlags.limits()
	if err != nil {
		return err
	}
	slice, err := parseShard(f.shard, os.Getenv)
	if err != nil {
		return badInput("%v", err)
	}
	if slice.Source != "flag" {
		slog.Info("corpus build shard", "index", slice.Index, "count", slice.Count, "from", slice.Source, "env", slice.Detail)
	}
	tasks, err := taskset.Load(f.tasks, f.skipBadLines)
	if err != nil {
		return err
	}
	if tasks, err = corpus.TasksOfSplits(tasks, f.splits); err != nil {
		return badInput("--split: %v", err)
	}
	if len(tasks) == 0 {
		return badInput("%s: no task of split %s", f.tasks, strings.Join(f.splits, ","))
	}
	prop, err := newProposer(ctx, "corpus build", f.proposerFlags, f.Seed)
	if err != nil {
		return err
	}
	// Each run's limit and coverage are chosen per run (the task's limit;
	// coverage where the mutate proposer will read it); the pool's own
	// limit is the cap.
	cpu0 := sandbox.ProcessCPUSeconds()
	pool, err := sandbox.Start(f.Workers, f.sandboxLimits, &limits, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	opts := f.BuildOptions
	opts.Config.Proposer, opts.Config.Model, opts.Config.Executor = prop.Proposer, prop.Model, pool
	opts.RootsFunc, opts.ShardIndex, opts.ShardCount, opts.TasksSource = mutate.Inject, slice.Index, slice.Count, f.tasks
	opts.Limits, opts.ExecutorSettings, opts.Protections = limits, pool.Options().VerdictSettings(), pool.Protections()
	start := time.Now()
	rep := build.NewBuildReporter(progressBar(f.noProg), start)
	opts.Progress = rep.Update
	man, err := build.BuildCorpus(ctx, tasks, opts)
	rep.Finish()
	if err != nil {
		return err
	}
	wall := time.Since(start).Seconds()
	if err := pool.Close(); err != nil { // the workers' CPU counts once they are waited for
		return fmt.Errorf("stop sandbox: %w", err)
	}
	sum := build.SummarizeBuild(f.Out, man, rep.Last().Nodes, wall, sandbox.ProcessCPUSeconds()-cpu0)
	if f.json {
		return printJSON(os.Stdout, sum)
	}
	return sum.WriteText(os.Stdout)
}
