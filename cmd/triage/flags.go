package main

import (
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/spf13/cobra"

	"triage/model"
)

// deprecatedAlias adds old as a hidden, deprecated name of c's flag name:
// renamed flags keep working, with a notice on stderr.
func deprecatedAlias(c *cobra.Command, old, name string) {
	f := c.Flags().Lookup(name)
	c.Flags().Var(f.Value, old, f.Usage)
	_ = c.Flags().MarkDeprecated(old, "use --"+name)
}

// benchModel parses the --arch and --dtype flags of the model benchmarks.
func benchModel(arch, dtype string) (model.Config, dtypes.DType, error) {
	var cfg model.Config
	switch arch {
	case "tiny", "small":
		cfg = model.SmallConfig()
	case "0.6b":
		cfg = model.Qwen3_0_6B()
	default:
		return cfg, dtypes.Float32, badInput("--arch %q: want tiny or 0.6b", arch)
	}
	switch dtype {
	case "f32", "float32":
		return cfg, dtypes.Float32, nil
	case "bf16", "bfloat16":
		return cfg, dtypes.BFloat16, nil
	}
	return cfg, dtypes.Float32, badInput("--dtype %q: want f32 or bf16", dtype)
}
