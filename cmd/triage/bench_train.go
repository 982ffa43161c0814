package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/model"
	"triage/train"
)

func newBenchTrainCmd() *cobra.Command {
	var (
		backend, arch, dtype, batches string
		seq, steps                    int
		peak                          float64
		seed                          uint64
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
			cfg, dt, err := benchModel(arch, dtype)
			if err != nil {
				return err
			}
			bs, err := corpus.ParseInts("batch", batches)
			if err != nil {
				return err
			}
			if seq < 8 || steps < 1 || peak < 0 {
				return badInput("--seq must be ≥ 8, --steps ≥ 1, --peak-tflops ≥ 0")
			}
			if _, err := model.BackendConfig(backend); err != nil {
				return badInput("--backend: %v", err)
			}
			be, err := model.NewBackend(backend)
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
				return printJSON(cmd.OutOrStdout(), map[string]any{"backend": be.Description(), "arch": arch, "dtype": dtype, "results": res})
			}
			header := fmt.Sprintf("backend %s, arch %s, %s, LoRA r 8 on q/k/v/o, seq %d", be.Description(), arch, dtype, seq)
			return train.WriteBench(cmd.OutOrStdout(), header, res)
		},
	}
	f := c.Flags()
	f.StringVar(&backend, "backend", model.DefaultBackend, "go, go:<options>, xla:cuda, xla:cpu or xla:/path/to/pjrt_plugin.so")
	f.StringVar(&arch, "arch", "tiny", "Qwen3 shape: tiny (2 layers, width 64: a CPU check) or 0.6b")
	f.StringVar(&dtype, "dtype", "f32", "decoder dtype: f32 or bf16")
	f.StringVar(&batches, "batch", "8", "comma-separated batch sizes (examples per step)")
	f.IntVar(&seq, "seq", 1024, "tokens per example")
	f.IntVar(&steps, "steps", 10, "timed steps after the first")
	f.Float64Var(&peak, "peak-tflops", 790, "accelerator peak TFLOP/s for MFU (0: none)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	return c
}
