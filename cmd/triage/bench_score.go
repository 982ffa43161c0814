package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/model"
)

func newBenchScoreCmd() *cobra.Command {
	var (
		backend, arch, dtype, modes string
		parents, k, tokens, edit    int
		rows, reps                  int
		seed                        uint64
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
			cfg, dt, err := benchModel(arch, dtype)
			if err != nil {
				return err
			}
			modeList, err := corpus.ParseList("--modes", modes, "packed", "unpacked")
			if err != nil {
				return err
			}
			if parents <= 0 || k <= 0 || reps <= 0 || rows <= 0 || edit <= 0 || tokens <= edit {
				return badInput("--parents, --k, --reps, --rows, --edit-tokens must be positive and --tokens-per-edge > --edit-tokens")
			}
			if _, err := model.BackendConfig(backend); err != nil {
				return badInput("--backend: %v", err)
			}
			be, err := model.NewBackend(backend)
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
				return printJSON(cmd.OutOrStdout(), map[string]any{"backend": be.Description(), "arch": arch,
					"dtype": dtype, "tokens_per_edge": tokens, "k": k, "results": res})
			}
			header := fmt.Sprintf("backend %s, arch %s, %s, %d tokens per edge, k = %d", be.Description(), arch, dtype, tokens, k)
			return model.WriteBenchScore(cmd.OutOrStdout(), header, res)
		},
	}
	f := c.Flags()
	f.StringVar(&backend, "backend", model.DefaultBackend, "go, go:<options>, xla:cuda, xla:cpu or xla:/path/to/pjrt_plugin.so")
	f.StringVar(&arch, "arch", "tiny", "Qwen3 shape: tiny (2 layers, width 64: a CPU check) or 0.6b")
	f.StringVar(&dtype, "dtype", "f32", "decoder dtype: f32 or bf16")
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
