package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/model"
	"triage/model/tokenizer"
	"triage/search/sandbox"
	"triage/search/serve"
	"triage/train"
)

func newBenchSandboxCmd() *cobra.Command {
	var (
		runs     int
		workers  int
		timeout  time.Duration
		coverage bool
		limits   sandbox.LimitsPolicy
	)
	c := &cobra.Command{
		Use:   "sandbox",
		Short: "Throughput and verdict parity of the sandbox executor against per-process pytest",
		Long: `sandbox runs the same (program, tests) pairs (reference solutions, single-edit
mutants, crashing and non-importing programs; embedded) through the sandbox
executor and through 'python3 -m pytest' one process per run, with the same
concurrency, and compares every run's per-test verdicts. It reports the CPU
time per suite of each side and splits the executor's by phase: the workers'
start-up, the forks and set-up of each run's two processes, the program
process (its import and every call into it), the judge's collection, test
bodies and reporting, the worker's side of the runs, the reference
collections and the Go process (--json: executor_cpu_ms_per_suite_by_phase;
the judge's phases are read from its process clock, which a process under a
CPU rlimit is charged in steps, so they can shift between its phases by a
scheduler tick; the totals are exact). --coverage runs the executor with
per-test line coverage, as a corpus build does for programs that get
proposals. Progress goes to stderr.`,
		Example: `  triage bench sandbox
  triage bench sandbox --runs 40 --workers 2 --test-timeout 5s --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runs < 1 {
				return badInput("--runs %d: want ≥ 1", runs)
			}
			if timeout <= 0 {
				return badInput("--test-timeout %v: want a positive limit", timeout)
			}
			nw, err := corpus.Workers(workers)
			if err != nil {
				return err
			}
			opts := sandbox.DefaultOptions()
			opts.Timeout = timeout
			opts.Limits = limits
			opts.Coverage = coverage
			res, err := sandbox.Bench(cmd.Context(), sandbox.BenchOptions{Runs: runs, Workers: nw, Pool: opts, Progress: os.Stderr})
			if err != nil {
				return fmt.Errorf("bench sandbox: %w", err)
			}
			return printResult(cmd, res, res.WriteText)
		},
	}
	addSandboxLimitsFlag(c, &limits)
	c.Flags().IntVar(&runs, "runs", 220, "runs on each side (≥ 1)")
	c.Flags().IntVar(&workers, "workers", 0, "concurrent runs on each side"+workersZero)
	c.Flags().DurationVar(&timeout, "test-timeout", sandbox.DefaultOptions().Timeout, "wall-clock limit of one test-suite run (> 0)")
	deprecatedAlias(c, "timeout", "test-timeout")
	c.Flags().BoolVar(&coverage, "coverage", false, "run the executor with per-test line coverage")
	return c
}

func newBenchScoreCmd() *cobra.Command {
	var (
		m                        modelFlags
		modes                    string
		parents, k, tokens, edit int
		rows, reps               int
		seed                     uint64
	)
	c := &cobra.Command{
		Use:   "score",
		Short: "Scoring throughput of the priority model (edges/s), packed vs unpacked",
		Long: `score builds a random-weight priority model (Qwen3 decoder, rank-8 LoRA on
q/k/v/o, head over 5 bins) of the --arch shape and scores --parents parents
with --k edits each, every edit --edit-tokens long after a parent prefix of
--tokens-per-edge minus --edit-tokens tokens: one unpacked edge is
--tokens-per-edge tokens. Packed mode puts the parent once and its k edits
after it (each edit attending to the prefix and itself), unpacked mode one
sequence per edge. One warm-up pass (compilation) is excluded from the
timing, then --reps passes are timed.

--arch tiny is a 2-layer, 64-wide Qwen3 (a CPU check); 0.6b is Qwen3-0.6B's shape.
--backend go (CPU), xla:cuda, or xla:/path/to/pjrt_plugin.so.
PyTorch on one H200 (the project's reference measurement): 160 edges/s
eager, 322 compiled.`,
		Example: `  triage bench score --arch tiny --parents 4 --reps 1
  triage bench score --backend xla:cuda --arch 0.6b --dtype bf16 --modes packed --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, dt, err := m.parse()
			if err != nil {
				return err
			}
			modeList, err := parseList("--modes", modes, "packed", "unpacked")
			if err != nil {
				return err
			}
			if parents <= 0 || k <= 0 || reps <= 0 || rows <= 0 || edit <= 0 || tokens <= edit {
				return badInput("--parents, --k, --reps, --rows, --edit-tokens must be positive and --tokens-per-edge > --edit-tokens")
			}
			be, err := m.openBackend()
			if err != nil {
				return err
			}
			defer be.Finalize()
			res, err := model.BenchScore(cmd.Context(), be, model.BenchOptions{
				Config: cfg, Options: model.Options{DType: dt, Seed: int64(seed)},
				Parents: parents, K: k, TokensPerEdge: tokens, EditTokens: edit,
				MaxRows: rows, Reps: reps, Seed: seed, Modes: modeList,
			})
			if err != nil {
				return fmt.Errorf("bench score: %w", err)
			}
			if jsonFlag(cmd) {
				return printJSON(cmd.OutOrStdout(), map[string]any{"backend": be.Description(), "arch": m.arch,
					"dtype": m.dtype, "tokens_per_edge": tokens, "k": k, "results": res})
			}
			header := fmt.Sprintf("backend %s, arch %s, %s, %d tokens per edge, k = %d", be.Description(), m.arch, m.dtype, tokens, k)
			return model.WriteBenchScore(cmd.OutOrStdout(), header, res)
		},
	}
	f := c.Flags()
	m.register(f)
	f.StringVar(&modes, "modes", "packed,unpacked", "comma-separated: packed, unpacked")
	f.IntVar(&parents, "parents", 8, "parents per pass")
	f.IntVar(&k, "k", 3, "edits per parent")
	f.IntVar(&tokens, "tokens-per-edge", 1024, "tokens of one unpacked edge (prefix + edit)")
	f.IntVar(&edit, "edit-tokens", 175, "tokens of one edit")
	f.IntVar(&rows, "rows", 8, "sequences per execution")
	f.IntVar(&reps, "reps", 2, "timed passes")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	return c
}

func newBenchServeCmd() *cobra.Command {
	var (
		bc benchServeConfig
	)
	lo := &bc.load
	c := &cobra.Command{
		Use:   "serve",
		Short: "Load test of POST /v1/priorities: p50, p99, requests/s, edges/s, with batching on and off",
		Long: `serve runs --clients concurrent clients against POST /v1/priorities for
--duration, each posting --edges edges (one parent's k edits) and waiting for
the answer before the next request, and prints latency percentiles,
requests/s, edges/s and errors.

Without --url it starts the server in this process on a loopback port, once
per --modes entry ("batch": concurrent requests share model executions of up
to --batch-edges; "nobatch": one execution per request), with the scorer of
--checkpoint (default: the embedded default checkpoint) or of --stand-in, a
simulated model that executes one call at a time, each taking the given
time per call plus per edge. With --url it measures that server as it is.
It fails (exit 1) when any request failed.`,
		Example: `  triage bench serve --checkpoint out/ckpt --clients 64 --duration 30s
  triage bench serve --stand-in 10ms+3ms/edge --clients 64 --duration 30s
  triage bench serve --url http://127.0.0.1:8080 --token-file tok`,
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := benchServe(cmd.Context(), bc)
			if err != nil {
				return err
			}
			if err := printResult(cmd, rows, func(w io.Writer) error { return serve.WriteLoadTable(w, rows) }); err != nil {
				return err
			}
			return serve.LoadErr(rows)
		},
	}
	bc.scorer.register(c)
	fl := c.Flags()
	fl.StringVar(&bc.url, "url", "", "measure the server at this base URL instead of one started here")
	fl.StringVar(&bc.modes, "modes", "batch,nobatch", "in-process server modes to measure, in order")
	fl.StringVar(&bc.tokenFile, "token-file", "", "bearer token for --url")
	fl.IntVar(&lo.Clients, "clients", 64, "concurrent clients")
	fl.DurationVar(&lo.Duration, "duration", 30*time.Second, "how long the clients post")
	fl.IntVar(&lo.EdgesPerRequest, "edges", 3, "edges per request")
	fl.DurationVar(&lo.Timeout, "request-timeout", time.Minute, "time limit of one request (> 0)")
	deprecatedAlias(c, "timeout", "request-timeout")
	return c
}

func newBenchTokenizerCmd() *cobra.Command {
	var (
		size    int
		minTime time.Duration
		runs    int
		path    string
		files   []string
	)
	c := &cobra.Command{
		Use:   "tokenizer",
		Short: "Throughput of the pure-Go BPE tokenizer (MB/s) and time of pathological inputs",
		Long: `tokenizer encodes about 1 MB of Python code and pytest tracebacks (generated,
deterministic; or the --file texts) with the embedded Qwen3 tokenizer (or
--tokenizer), once with an empty merge cache (cold) and then repeatedly
(warm), on one goroutine, and times five long adversarial inputs (50k spaces,
letters, newlines; 200k random base64; 33k random CJK characters), best of
--runs.
Targets: >= 5 MB/s, each pathological input under 100 ms. Times are wall
clock: on a loaded machine they include other processes' load.`,
		Example: `  triage bench tokenizer
  triage bench tokenizer --file corpus/bundled/tasks.jsonl --runs 5 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if size <= 0 || runs <= 0 || minTime < 0 {
				return badInput("--size and --runs must be positive, --min-time not negative")
			}
			tok, err := loadBenchTokenizer(path)
			if err != nil {
				return err
			}
			var text strings.Builder
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					return badInput("--file: %v", err)
				}
				text.Write(data)
			}
			res, err := tokenizer.Bench(tok, tokenizer.BenchOptions{Text: text.String(), Size: size, MinTime: minTime, Runs: runs})
			if err != nil {
				return fmt.Errorf("bench tokenizer: %w", err)
			}
			return printResult(cmd, res, res.WriteText)
		},
	}
	c.Flags().IntVar(&size, "size", 1<<20, "bytes of generated code and tracebacks (ignored with --file)")
	c.Flags().DurationVar(&minTime, "min-time", time.Second, "measure warm throughput at least this long")
	c.Flags().IntVar(&runs, "runs", 3, "times each pathological input is encoded, ≥ 1 (fastest and slowest shown)")
	c.Flags().StringVar(&path, "tokenizer", "", "tokenizer.json (plain, .zst or .gz); default: embedded Qwen3")
	c.Flags().StringArrayVar(&files, "file", nil, "text file to encode instead of the generated corpus (repeatable)")
	return c
}

// loadBenchTokenizer returns the tokenizer at path, or the embedded Qwen3
// one when path is empty. A file that cannot be read or parsed is bad input.
func loadBenchTokenizer(path string) (*tokenizer.Tokenizer, error) {
	if path == "" {
		tok, err := tokenizer.Qwen3()
		if err != nil {
			return nil, fmt.Errorf("bench tokenizer: %w", err)
		}
		return tok, nil
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		return nil, badInput("--tokenizer: %v", err)
	}
	return tok, nil
}

func newBenchTrainCmd() *cobra.Command {
	var (
		m          modelFlags
		batches    string
		seq, steps int
		peak       float64
		seed       uint64
	)
	c := &cobra.Command{
		Use:   "train",
		Short: "Training throughput of the Qwen3 priority model with LoRA (tokens/s, step time, first step, MFU)",
		Long: `train builds a random-weight Qwen3 of the --arch shape with rank-8 LoRA on
q/k/v/o (frozen base) and the priority head, and trains it on random
--seq-token examples with the discrete-survival loss and AdamW, one scored
position per example, as the PyTorch + PEFT anchor does. For each batch size
it reports the first step (compilation included), the mean step time of
--steps further steps, tokens/s and MFU: 4 FLOPs per decoder matmul
parameter per token over --peak-tflops (the anchors use 790, measured bf16
dense on the H200).

PyTorch 2.11 + PEFT on one H200 (the project's reference measurement, Qwen3-0.6B shape, seq
1024, bf16): eager 61.9k tok/s at batch 32, 63.7k at 64; torch.compile
121k after 111 s (batch 32) and 196 s (batch 64) of compilation.`,
		Example: `  triage bench train --arch tiny --batch 4 --seq 128 --steps 3
  triage bench train --backend xla:cuda --arch 0.6b --dtype bf16 --batch 32,64 --seq 1024 --steps 10 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, dt, err := m.parse()
			if err != nil {
				return err
			}
			bs, err := parseInts("batch", batches)
			if err != nil {
				return err
			}
			if seq < 8 || steps < 1 || peak < 0 {
				return badInput("--seq must be ≥ 8, --steps ≥ 1, --peak-tflops ≥ 0")
			}
			be, err := m.openBackend()
			if err != nil {
				return err
			}
			defer be.Finalize()
			var res []train.BenchResult
			for _, b := range bs {
				r, err := train.BenchTrain(cmd.Context(), be, train.BenchOptions{Config: cfg,
					Options: model.Options{DType: dt, Seed: int64(seed)}, Batch: b, Seq: seq, Steps: steps, Seed: seed}, peak)
				if err != nil {
					return fmt.Errorf("bench train: batch %d: %w", b, err)
				}
				res = append(res, r)
			}
			if jsonFlag(cmd) {
				return printJSON(cmd.OutOrStdout(), map[string]any{"backend": be.Description(), "arch": m.arch, "dtype": m.dtype, "results": res})
			}
			header := fmt.Sprintf("backend %s, arch %s, %s, LoRA r 8 on q/k/v/o, seq %d", be.Description(), m.arch, m.dtype, seq)
			return train.WriteBench(cmd.OutOrStdout(), header, res)
		},
	}
	f := c.Flags()
	m.register(f)
	f.StringVar(&batches, "batch", "8", "comma-separated batch sizes (examples per step)")
	f.IntVar(&seq, "seq", 1024, "tokens per example")
	f.IntVar(&steps, "steps", 10, "timed steps after the first")
	f.Float64Var(&peak, "peak-tflops", 790, "accelerator peak TFLOP/s for MFU (0: none)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	return c
}
