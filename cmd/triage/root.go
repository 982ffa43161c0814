package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"triage/search/eval/report"

	"github.com/spf13/cobra"
)

// commands is the command table: each command's group ("" for the top
// level, else "tasks", "corpus" or "bench") and constructor, in the order
// the help lists them within a group.
var commands = []struct {
	group string
	make  func() *cobra.Command
}{
	{"", newCVCmd},
	{"", newEvalCmd},
	{"", newSearchCmd},
	{"", newServeCmd},
	{"", newTrainCmd},
	{"", newTuneCmd},
	{"bench", newBenchSandboxCmd},
	{"bench", newBenchScoreCmd},
	{"bench", newBenchServeCmd},
	{"bench", newBenchTokenizerCmd},
	{"bench", newBenchTrainCmd},
	{"corpus", newCorpusBuildCmd},
	{"corpus", newCorpusMergeCmd},
	{"corpus", newCorpusReplicateCmd},
	{"corpus", newCorpusStatsCmd},
	{"prior", newPriorBuildCmd},
	{"tasks", newTasksConvertCmd},
	{"tasks", newTasksInjectCmd},
	{"tasks", newTasksValidateCmd},
	{"tasks", newTasksSourcesCmd},
}

// jsonFlag reports the global --json flag as cmd parsed it.
func jsonFlag(cmd *cobra.Command) bool {
	v, _ := cmd.Flags().GetBool("json")
	return v
}

func newCLI() *cobra.Command {
	groups := map[string]*cobra.Command{}
	root := &cobra.Command{
		Use:   "triage",
		Short: "Learned search for LLM code repair: corpora, policies, evaluation",
		Long: `triage makes LLM code repair spend fewer expansions.

It builds repair-tree corpora (a proposer diagnoses a failing program and
proposes k edits; each edit is expanded into a new program and tested), runs
best-first repair search with a learned priority model, and compares it with
the MCTS/UCT and bandit baselines on the same trees.

Exit codes: 0 ok, 1 the job failed, 2 bad usage or bad input
(docs/cli-errors.md lists every bad input and its message).`,
		Example: `  triage tasks validate --tasks bundled
  triage corpus build --tasks bundled --roots 1 --out out/corpus
  triage eval --corpus out/corpus --split test --report out/eval.html`,
		// Without a subcommand: the help; with an unknown one: exit 2.
		Args:          unknownCommand,
		RunE:          func(c *cobra.Command, args []string) error { return c.Help() },
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			level := slog.LevelInfo
			if v, _ := cmd.Flags().GetBool("verbose"); v {
				level = slog.LevelDebug
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
		},
	}
	root.PersistentFlags().Bool("json", false, "print results as JSON on stdout")
	root.PersistentFlags().BoolP("verbose", "v", false, "debug logging on stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{Err: err} })

	for _, g := range []struct{ name, short, example string }{
		{"tasks", "Validate and prepare task sets (JSONL, KodCode-compatible)",
			"  triage tasks validate --tasks bundled\n  triage tasks inject --tasks bundled --roots 5 --out out/tasks-with-roots.jsonl"},
		{"corpus", "Build, inspect and merge repair-tree corpora (Parquet)",
			"  triage corpus build --tasks bundled --roots 1 --out out/corpus\n  triage corpus stats out/corpus"},
		{"prior", "Build the code prior: a model of Python from code outside the task corpora",
			"  triage prior build --sources out/prior-src/sources.json --exclude-tasks bundled,mbpp --out out/prior.bin"},
		{"bench", "Benchmarks that print a table (or JSON with --json)",
			"  triage bench sandbox --runs 40\n  triage bench tokenizer --json"},
	} {
		c := &cobra.Command{Use: g.name, Short: g.short, Example: g.example, Args: unknownCommand,
			RunE: func(c *cobra.Command, args []string) error { return c.Help() }}
		groups[g.name] = c
		root.AddCommand(c)
	}
	for _, r := range commands {
		c := r.make()
		if r.group == "" {
			root.AddCommand(c)
		} else {
			groups[r.group].AddCommand(c)
		}
	}
	root.SetHelpCommand(newHelpCmd(root))
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = "  source <(triage completion bash)"
			for _, sh := range c.Commands() {
				sh.Example = "  triage completion " + sh.Name() + " > out/triage-completion." + sh.Name()
			}
		}
	}
	usageArgs(root)
	commonFieldNames(root)
	return root
}

// commonFieldNames makes every command of c name the option fields in its
// errors as commonFlags does, where the command's own names left one.
func commonFieldNames(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(c *cobra.Command, args []string) error { return commonFlags.flagged(run(c, args)) }
	}
	for _, sub := range c.Commands() {
		commonFieldNames(sub)
	}
}

// unknownCommand is the argument check of the root and the command groups:
// an argument there names a subcommand that does not exist.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
	}
	return badInput("%s; see '%s --help'", msg, c.CommandPath())
}

// usageArgs makes every argument check of c and its subcommands return a
// usage error (exit 2): a command without one takes no arguments, and a
// command without a run function prints its help.
func usageArgs(c *cobra.Command) {
	if !c.Runnable() {
		// cobra prints the help of a command without a run function and
		// exits 0 before it checks the arguments.
		c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	}
	check := c.Args
	if check == nil {
		check = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("%s takes no arguments, got %q", c.CommandPath(), args)
			}
			return nil
		}
	}
	c.Args = func(c *cobra.Command, args []string) error {
		err := check(c, args)
		var ue *usageError
		if err == nil || errors.As(err, &ue) {
			return err
		}
		return &usageError{Err: err}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// newHelpCmd replaces cobra's help command, which prints the root's help
// and exits 0 for a topic that does not exist.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:     "help [command]",
		Short:   "Help about any command",
		Example: "  triage help corpus build",
		Args:    cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			rest = slices.DeleteFunc(rest, func(a string) bool { return strings.HasPrefix(a, "-") })
			if err != nil || len(rest) > 0 {
				return badInput("unknown help topic %q; see 'triage --help'", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
}

// jsonFileArgs is the argument check of eval and search, which take
// `--json FILE` (the form users know from the issue tracker and the README):
// the JSON result goes to FILE and the Markdown table to stdout. The global
// --json is a boolean, so FILE arrives as the one positional argument; hint
// is the command's likeliest flag for a stray argument.
func jsonFileArgs(hint string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == 0 || (len(args) == 1 && jsonFlag(c)) {
			return nil
		}
		return badInput("%s takes no arguments (did you mean --json FILE or %s?): %q", c.Name(), hint, args)
	}
}

// printJSON writes v as indented JSON to w.
var printJSON = report.WriteJSON

// printResult prints a command's result v on its stdout: as JSON with
// --json, else as text writes it.
func printResult(cmd *cobra.Command, v any, text func(io.Writer) error) error {
	if jsonFlag(cmd) {
		return printJSON(cmd.OutOrStdout(), v)
	}
	return text(cmd.OutOrStdout())
}
