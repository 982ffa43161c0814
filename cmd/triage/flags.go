package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"triage/model"
	"triage/search/proposer/openai"
	"triage/search/proposer/setup"
	"triage/search/sandbox"
)

// deprecatedAlias adds old as a hidden, deprecated name of c's flag name:
// renamed flags keep working, with a notice on stderr.
func deprecatedAlias(c *cobra.Command, old, name string) {
	f := c.Flags().Lookup(name)
	c.Flags().Var(f.Value, old, f.Usage)
	_ = c.Flags().MarkDeprecated(old, "use --"+name)
}

// modelFlags are the --backend, --arch and --dtype flags of the model
// benchmarks (bench score and bench train).
type modelFlags struct{ backend, arch, dtype string }

func (m *modelFlags) register(f *pflag.FlagSet) {
	f.StringVar(&m.backend, "backend", model.DefaultBackend, "go, go:<options>, xla:cuda, xla:cpu or xla:/path/to/pjrt_plugin.so")
	f.StringVar(&m.arch, "arch", "tiny", "Qwen3 shape: tiny (2 layers, width 64: a CPU check) or 0.6b")
	f.StringVar(&m.dtype, "dtype", "f32", "decoder dtype: f32 or bf16")
}

// openBackend checks --backend (bad input, exit 2) and opens it; the
// caller finalizes it.
func (m *modelFlags) openBackend() (backends.Backend, error) {
	if _, err := model.BackendConfig(m.backend); err != nil {
		return nil, badInput("--backend: %v", err)
	}
	return model.NewBackend(m.backend)
}

// parse parses --arch and --dtype.
func (m *modelFlags) parse() (model.Config, dtypes.DType, error) {
	arch, dtype := m.arch, m.dtype
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

// proposerFlags are the proposer settings `corpus build` and `search`
// share; both build their proposer from them with newProposer.
type proposerFlags struct {
	proposer, baseURL, model, apiKeyEnv string
	temperature                         float32
	maxTokens, concurrency, n           int
	noLogProbs                          bool
}

// addProposerFlags adds the proposer flags to fl; the commands word the
// help of --temperature and --n each for itself.
func addProposerFlags(fl *pflag.FlagSet, p *proposerFlags, temperatureUsage, nUsage string) {
	fl.StringVar(&p.proposer, "proposer", "mutate", "proposer: mutate (offline) or openai")
	fl.StringVar(&p.baseURL, "base-url", "", "openai: server base URL, e.g. http://127.0.0.1:8000/v1")
	fl.StringVar(&p.model, "model", "", "openai: model name")
	fl.StringVar(&p.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "openai: environment variable holding the API key")
	fl.Float32Var(&p.temperature, "temperature", 0.7, temperatureUsage)
	fl.IntVar(&p.maxTokens, "max-tokens", 2048, "openai: max output tokens per call")
	fl.IntVar(&p.concurrency, "concurrency", 8, "openai: requests in flight")
	fl.IntVar(&p.n, "n", 1, nUsage)
	fl.BoolVar(&p.noLogProbs, "no-logprobs", false, "openai: do not ask the server for token log-probabilities (each edit's proposer_score); for servers that refuse the field")
}

// proposerFlagNames are the flags of setup.Options' fields.
var proposerFlagNames = flagNames{"Name": "--proposer"}

// newProposer builds the proposer of p (setup.New); bad options are bad
// input, a server that fails its check is a failure of the command named.
func newProposer(ctx context.Context, command string, p proposerFlags, seed uint64) (setup.Proposer, error) {
	built, err := setup.New(ctx, setup.Options{Name: p.proposer, Seed: seed, BaseURL: p.baseURL, Model: p.model,
		APIKey: os.Getenv(p.apiKeyEnv), N: p.n, Temperature: p.temperature, MaxTokens: p.maxTokens, Concurrency: p.concurrency,
		NoLogProbs: p.noLogProbs})
	var inv *setup.InvalidError
	switch {
	case errors.As(err, &inv):
		return built, &usageError{Err: proposerFlagNames.flagged(inv.Err)}
	case errors.Is(err, openai.ErrUnauthorized):
		where := fmt.Sprintf("$%s is empty", p.apiKeyEnv)
		if os.Getenv(p.apiKeyEnv) != "" {
			where = fmt.Sprintf("it was read from $%s", p.apiKeyEnv)
		}
		return built, fmt.Errorf("%s: %w (%s; --api-key-env names the variable that holds the key)", command, err, where)
	case err != nil:
		return built, fmt.Errorf("%s: %w", command, err)
	}
	return built, nil
}

// limitsFlag is the value of --sandbox-limits.
type limitsFlag struct{ p *sandbox.LimitsPolicy }

func (f limitsFlag) String() string { return string(*f.p) }
func (f limitsFlag) Type() string   { return "require|warn" }
func (f limitsFlag) Set(s string) error {
	p, err := sandbox.ParseLimitsPolicy(s)
	if err == nil {
		*f.p = p
	}
	return commonFlags.flagged(err)
}

// addSandboxLimitsFlag adds --sandbox-limits to a command that starts a
// sandbox and sets *p to its value: require (the default) refuses to run
// (exit 2) when the workers' memory and process limits (cgroups, or
// without them a uid per run and the sandbox's own accounting) cannot be
// set up, warn runs without them.
func addSandboxLimitsFlag(c *cobra.Command, p *sandbox.LimitsPolicy) {
	*p = sandbox.LimitsRequire
	c.Flags().Var(limitsFlag{p}, "sandbox-limits", "require: refuse to run (exit 2) without the sandbox's memory and process limits (cgroups, or a uid per run and the sandbox's own accounting); warn: run without them (docs/deploy.md)")
}

// progressBar reports whether a command shows its progress bar: on a
// terminal, unless --no-progress (off).
func progressBar(off bool) bool { return !off && term.IsTerminal(int(os.Stderr.Fd())) }
