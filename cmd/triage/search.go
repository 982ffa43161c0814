package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"triage/corpus"
	"triage/corpus/taskset"
	"triage/search/eval"
	"triage/search/live"

	"github.com/spf13/cobra"

	"triage/policy"
	"triage/search/eval/report"
	"triage/search/tsapr"
)

// searchFlags are search's flags: most of them bind to live.Config.
type searchFlags struct {
	live.Config
	tasks, split, taskIDs, methods, policies, jsonFile string
	checkpoint, params, judge, prompts                 string
	proposerFlags
	jsonToFile, noProg, skipBadLines bool
	limitFlags                       timeLimitFlags
}

// searchAfterRoot, when set (tests), is called after each finished search
// with the number finished so far.
var searchAfterRoot func(done int)

// searchLong is search's long help.
var searchLong = `search repairs the roots of a task set live: tasks that ship roots use them,
the others get roots from mutate.Inject with --seed, exactly as 'corpus build'
makes them (root i of a task is the same program as in a corpus built with the
same --roots and --seed). Before searching, every task passes corpus build's
input checks, and each gets corpus build's adaptive time limit (from its
reference's run time) unless --test-timeout fixes one.

` + timeLimitsHelp + `

--method policy (the default) runs best-first search over the cross-program
frontier of proposed edits with --policy (learned, or a baseline: random, bfs,
dfs, passrate, rex, abmcts, bgmcts, uct); each expansion revises a program
with the --proposer (mutate offline, or openai) and runs its tests in the
sandbox. --method tsapr runs TSAPR: UCT over patches that an LLM writes with
a chain of thought and a self-reflection, rewarded by the tests' pass rate or
by the LLM as judge. A comma list (--method policy,tsapr, --policy
learned,uct) searches the same roots with each, in one table.

Per root it reports solved or not, expansions (patches for TSAPR) to the
first fix, output and input tokens, wall time and the fix as a unified diff
against the root; overall S(B) and C(B) at B = --budget with standard errors
from a bootstrap clustered by task. Ctrl-C stops the searches in flight and
prints what finished (exit 1).

--out DIR writes the searched trees in the corpus Parquet schema with a
manifest ('triage eval', 'corpus stats' and the HTML tree viewer read them);
with several methods or policies, each gets DIR/<name>.`

func newSearchCmd() *cobra.Command {
	f := &searchFlags{}
	f.TSAPR = tsapr.DefaultOptions()
	c := &cobra.Command{
		Use:   "search",
		Short: "Live repair search from every root: a policy over the frontier, or TSAPR",
		Long:  searchLong,
		Example: `  triage search --tasks bundled --split test --roots 1 --proposer mutate --policy uct --budget 16
  triage search --tasks bundled --split test --proposer openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B \
      --method tsapr --judge auto --budget 16 --out out/tsapr --json out/tsapr.json
  triage search --tasks tasks.jsonl --proposer openai --base-url http://127.0.0.1:11434/v1 --model qwen3:8b \
      --method policy,tsapr --policy learned --budget 16`,
		Args: jsonFileArgs("--tasks FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				f.jsonFile, f.jsonToFile = args[0], true
			}
			// TSAPR samples at the paper's 0.9 unless told otherwise; the
			// policy's proposer keeps --temperature's default.
			if cmd.Flags().Changed("temperature") {
				f.TSAPR.Temperature = f.temperature
			}
			return searchFlagNames.flagged(searchHandler(cmd.Context(), cmd, f))
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.tasks, "tasks", "", `tasks: a JSONL file or "bundled"`)
	fl.StringVar(&f.split, "split", "all", "search the tasks of one split: train, val, test or all")
	fl.StringVar(&f.taskIDs, "task-ids", "", "search only these tasks (comma-separated ids)")
	fl.IntVar(&f.Roots, "roots", 5, "roots per task (the first --roots of a task's own, or injected)")
	fl.Uint64Var(&f.Seed, "seed", 1, "seed of root injection, of the mutate proposer and of the policies")
	fl.StringVar(&f.methods, "method", "policy", "search method: policy, tsapr, or a comma list")
	fl.StringVar(&f.policies, "policy", "learned", "policy of --method policy (or a comma list): learned, hybrid, "+strings.Join(policy.Baselines, ", "))
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint of the learned policy (default: the embedded default)")
	fl.StringVar(&f.params, "params", "", "JSON file of baseline hyperparameters (from 'triage tune')")
	fl.IntVar(&f.Budget, "budget", 16, fmt.Sprintf("most expansions per root (patches for TSAPR), at most %d", eval.MaxBudget))
	fl.IntVar(&f.K, "k", 3, "policy: edits proposed per program")
	fl.IntVar(&f.D, "depth", 4, "policy: maximum depth (root = 0)")
	addProposerFlags(fl, &f.proposerFlags, "openai: sampling temperature (default: 0.7 for the policy's proposer, 0.9 for TSAPR)",
		"openai policy proposer: completions per diagnose call")
	fl.StringVar(&f.judge, "judge", "auto", "tsapr: reward of failing patches: llm, tests, or auto (llm below 10 tests)")
	fl.StringVar(&f.TSAPR.JudgeModel, "judge-model", "", "tsapr: judging model (default --model)")
	fl.IntVar(&f.TSAPR.Samples, "samples", 5, "tsapr: judge replies averaged per patch")
	fl.Float64Var(&f.TSAPR.C, "c", 0.7, "tsapr: UCT exploration constant C")
	fl.Float64Var(&f.TSAPR.Beta, "beta", 0.8, "tsapr: weight of the children's Q in the update")
	fl.IntVar(&f.TSAPR.MaxExpansion, "max-expansion", 3, "tsapr: most children per expansion")
	fl.StringVar(&f.prompts, "prompts", "", "tsapr: folder of prompt files replacing the defaults (system.txt, generate.tmpl, reflect.tmpl, judge.tmpl)")
	fl.BoolVar(&f.TSAPR.UntilBudget, "until-budget", false, "tsapr: go on after the first plausible patch, collecting more until the budget")
	fl.StringVar(&f.Out, "out", "", "write the searched trees (corpus Parquet schema) to this folder")
	fl.StringVar(&f.jsonFile, "json-file", "", "also write the JSON result to this file (as 'eval --json-file'; '--json FILE' does the same)")
	fl.IntVar(&f.Workers, "workers", 0, "tasks searched concurrently (and sandbox workers)"+workersZero)
	fl.IntVar(&f.Resamples, "bootstrap", 1000, "bootstrap resamples of tasks for standard errors")
	fl.BoolVar(&f.noProg, "no-progress", false, "no progress bar, even on a terminal")
	fl.BoolVar(&f.skipBadLines, "skip-bad-lines", false, skipBadLinesUsage)
	f.limitFlags.register(fl, false)
	addSandboxLimitsFlag(c, &f.SandboxLimits)
	return c
}

// searchFlagNames are the flags of live.Config's fields and of eval's
// policy list.
var searchFlagNames = commonFlags.with(flagNames{"Budget": "--budget", "Roots": "--roots", "K": "--k", "D": "--depth",
	"Resamples": "--bootstrap", "Methods": "--method", "Policies": "--policy", "Params": "--params",
	"TSAPR.C": "--c", "TSAPR.Beta": "--beta", "TSAPR.MaxExpansion": "--max-expansion", "TSAPR.Samples": "--samples"})

// tsaprFlags are the flags that apply to --method tsapr alone.
var tsaprFlags = []string{"judge", "judge-model", "samples", "c", "beta", "max-expansion", "prompts", "until-budget"}

// checkSearchFlags checks search's flags before the tasks are read:
// live.Config's own checks, --split, and the flags that apply to one
// method only.
func checkSearchFlags(f *searchFlags, given func(flag string) bool) error {
	if err := f.Config.Validate(); err != nil {
		return err
	}
	if err := corpus.CheckSplit(f.split, "all"); err != nil {
		return err
	}
	if !slices.Contains(f.Methods, live.MethodPolicy) && given("policy") {
		return badInput("--policy applies to --method policy")
	}
	usesTSAPR := slices.Contains(f.Methods, live.MethodTSAPR)
	for _, name := range tsaprFlags {
		if !usesTSAPR && given(name) {
			return badInput("--%s applies to --method tsapr", name)
		}
	}
	if usesTSAPR && f.proposer != "openai" {
		return badInput("--method tsapr needs an LLM: --proposer openai --base-url URL --model NAME")
	}
	var err error
	if f.TSAPR.Judge, err = tsapr.ParseJudgeMode(f.judge); err != nil {
		return badInput("--judge: %v", err)
	}
	return nil
}

// parseMethods reads --method: a comma list of policy and tsapr.
func parseMethods(value string) ([]string, error) {
	var methods []string
	for _, m := range splitList(value) {
		if m != live.MethodPolicy && m != live.MethodTSAPR {
			return nil, badInput("--method %q: want policy, tsapr, or a comma list of them", m)
		}
		if slices.Contains(methods, m) {
			return nil, badInput("--method: %s given twice", m)
		}
		methods = append(methods, m)
	}
	if len(methods) == 0 {
		return nil, badInput("--method is empty")
	}
	return methods, nil
}

// selectTasks keeps the tasks of split ("all" for every split) and ids
// (--task-ids, comma-separated, empty for all) from all, the task set
// read from source.
func selectTasks(all []corpus.Task, source, split, taskIDs string) ([]corpus.Task, error) {
	ids := splitList(taskIDs)
	inSplit, err := corpus.TasksOfSplits(all, []string{split})
	if err != nil {
		return nil, badInput("--split: %v", err)
	}
	var tasks []corpus.Task
	for _, t := range inSplit {
		if len(ids) == 0 || slices.Contains(ids, t.ID) {
			tasks = append(tasks, t)
		}
	}
	for _, id := range ids {
		if !slices.ContainsFunc(all, func(t corpus.Task) bool { return t.ID == id }) {
			return nil, badInput("--task-ids: no task %q in %s", id, source)
		}
	}
	if len(tasks) == 0 {
		return nil, badInput("%s: no task in split %q with the given ids", source, split)
	}
	return tasks, nil
}

// searchMethods prepares the methods of f in order: TSAPR's prompts, and
// the policies with their params and the learned model they need. free
// releases the model.
func searchMethods(f *searchFlags) (free func(), err error) {
	free = func() {}
	for _, m := range f.Methods {
		if m == live.MethodTSAPR {
			if f.prompts != "" {
				if f.TSAPR.Prompts, err = tsapr.LoadPrompts(f.prompts); err != nil {
					return free, badInput("--prompts: %v", err)
				}
			}
			continue
		}
		names := splitList(f.policies)
		if len(names) == 0 {
			return free, badInput("--policy is empty")
		}
		ps, err := eval.LoadParams(f.params)
		if err != nil {
			return free, err
		}
		if err := eval.CheckPolicies(names, ps); err != nil {
			return free, err
		}
		scorer, freeScorer, err := learnedScorer(names, f.checkpoint)
		if err != nil {
			return freeScorer, err
		}
		pols, closeBatchers, err := eval.BuildPolicies(names, ps, scorer)
		free = func() { closeBatchers(); freeScorer() }
		if err != nil {
			return free, err
		}
		f.Policies = pols
	}
	return free, nil
}

func searchHandler(ctx context.Context, cmd *cobra.Command, f *searchFlags) error {
	var err error
	if f.Limits, err = f.limitFlags.limits(); err != nil {
		return err
	}
	f.ProposerName = f.proposer
	if f.Methods, err = parseMethods(f.methods); err != nil {
		return err
	}
	if err := checkSearchFlags(f, cmd.Flags().Changed); err != nil {
		return err
	}
	all, err := taskset.Load(f.tasks, f.skipBadLines)
	if err != nil {
		return err
	}
	if f.Tasks, err = selectTasks(all, f.tasks, f.split, f.taskIDs); err != nil {
		return err
	}
	prop, err := newProposer(ctx, "search", f.proposerFlags, f.Seed)
	if err != nil {
		return err
	}
	f.TSAPR.Model, f.TSAPR.ModelName, f.TasksSource = f.model, f.model, f.tasks
	f.Proposer, f.OnRoot = prop, searchAfterRoot
	f.Progress = progressBar(f.noProg)
	free, err := searchMethods(f)
	defer free()
	if err != nil {
		return err
	}
	rep, err := live.Search(ctx, f.Config)
	if err != nil {
		return err
	}
	if f.jsonFile != "" {
		if err := report.WriteJSONFile(f.jsonFile, rep); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if jsonFlag(cmd) && !f.jsonToFile {
		if err := printJSON(w, rep); err != nil {
			return err
		}
	} else if err := rep.WriteMarkdown(w); err != nil {
		return err
	}
	return rep.Err()
}
