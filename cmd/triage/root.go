package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sort"

	"github.com/spf13/cobra"
)

// Global flags.
var (
	flagJSON    bool
	flagVerbose bool
)

// groups are the parent commands that other files add subcommands to.
var groups = map[string]*cobra.Command{}

// registrations is filled by init functions of the per-command files: each
// names its parent group ("" for the root) and a constructor.
var registrations []registration

type registration struct {
	parent string
	make   func() *cobra.Command
}

// register adds a subcommand under parent ("" = top level, else a group name
// such as "tasks", "corpus" or "bench").
func register(parent string, make func() *cobra.Command) {
	registrations = append(registrations, registration{parent, make})
}

func newCLI() *cobra.Command {
	root := &cobra.Command{
		Use:   "triage",
		Short: "Learned search for LLM code repair: corpora, policies, evaluation",
		Long: `triage makes LLM code repair spend fewer expansions.

It builds repair-tree corpora (a proposer diagnoses a failing program and
proposes k edits; each edit is expanded into a new program and tested), runs
best-first repair search with a learned priority model, and compares it with
the MCTS/UCT and bandit baselines on the same trees.

Exit codes: 0 ok, 1 the job failed, 2 bad usage or bad input.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			level := slog.LevelInfo
			if flagVerbose {
				level = slog.LevelDebug
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
		},
	}
	root.PersistentFlags().BoolVar(&flagJSON, "json", false, "print results as JSON on stdout")
	root.PersistentFlags().BoolVarP(&flagVerbose, "verbose", "v", false, "debug logging on stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{err} })

	for _, g := range []struct{ name, short string }{
		{"tasks", "Validate and prepare task sets (JSONL, KodCode-compatible)"},
		{"corpus", "Build, inspect and merge repair-tree corpora (Parquet)"},
		{"bench", "Benchmarks that print a table (or JSON with --json)"},
	} {
		c := &cobra.Command{Use: g.name, Short: g.short, Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error { return c.Help() }}
		groups[g.name] = c
		root.AddCommand(c)
	}
	sort.SliceStable(registrations, func(i, j int) bool { return registrations[i].parent < registrations[j].parent })
	for _, r := range registrations {
		c := r.make()
		if c.Args == nil {
			c.Args = cobra.NoArgs
		}
		if r.parent == "" {
			root.AddCommand(c)
		} else {
			groups[r.parent].AddCommand(c)
		}
	}
	return root
}

// printJSON writes v as indented JSON to w.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
