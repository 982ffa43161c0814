package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"triage/checkpoints"
	"triage/corpus"
	"triage/policy"
	"triage/search/eval"
	"triage/search/eval/report"
)

type evalFlags struct {
	corpus, split, policies, checkpoint, params, budgets string
	scoreBy                                              string
	perDepth                                             bool
	reportPath, jsonFile, viewTree, viewPolicy           string
	jsonToFile                                           bool // --json FILE: JSON to FILE, table on stdout
	budget, seeds, resamples, workers                    int
}

func newEvalCmd() *cobra.Command {
	var f evalFlags
	c := &cobra.Command{
		Use:   "eval",
		Short: "Replay search policies on a corpus split: E[T], tokens, S(B), C(B), AUSC(B)",
		Long: `eval replays every policy on every tree of one split of a corpus and prints
a Markdown table (or the JSON summary with --json): E[T], the mean expansions
to the first fix over trees that contain one; output tokens through the first
fix; S(B), C(B) and AUSC(B) at each budget; each with a standard error from a
bootstrap clustered by task. Stochastic policies are averaged over --seeds.
--report writes a self-contained HTML report with the success curves and a
tree viewer. Hyperparameters come from --params (written by 'triage tune' on
the validation split).`,
		Example: `  triage eval --corpus out/corpus --split test --report out/eval.html
  triage eval --corpus out/corpus --policies rex,uct --params out/tuned.json --json
  triage eval --corpus out/corpus --split test --json out/eval.json   # table on stdout, JSON to the file`,
		// `--json FILE` (the form users know from the issue tracker and the
		// README) writes the JSON summary to FILE and keeps the Markdown table
		// on stdout; the global --json is a boolean, so FILE arrives as the one
		// positional argument.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			if len(args) == 1 && jsonFlag(cmd) {
				return nil
			}
			return badInput("eval takes no arguments (did you mean --json FILE or --corpus DIR?): %q", args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if f.jsonFile != "" && f.jsonFile != args[0] {
					return badInput("--json %s and --json-file %s disagree", args[0], f.jsonFile)
				}
				f.jsonFile, f.jsonToFile = args[0], true
			}
			return runEval(cmd, &f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.corpus, "corpus", "", "corpus folders (comma-separated) holding Parquet shards (required)")
	fl.StringVar(&f.split, "split", corpus.SplitTest, "split to evaluate: train, val or test")
	fl.StringVar(&f.policies, "policies", "learned,hybrid,"+strings.Join(policy.Baselines, ","), "comma-separated policies (learned and hybrid use --checkpoint, default the embedded one)")
	fl.StringVar(&f.scoreBy, "score", "s", "learned policy's ranking score: s (CodeTriage's s(e)) or p1 (ablation: P(t = 1) alone)")
	fl.BoolVar(&f.perDepth, "rank-within-depth", false, "ablation: the learned policy ranks edges only within one depth, shallowest depth first")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint of the learned policy (default: the embedded default)")
	fl.StringVar(&f.params, "params", "", "JSON file of hyperparameters per policy (from 'triage tune')")
	fl.StringVar(&f.budgets, "budgets", "4,8,16,36", budgetsUsage)
	fl.IntVar(&f.budget, "budget", 0, fmt.Sprintf("cap on expansions per replay, at most %d (0: until the first fix, needed for E[T])", maxBudget))
	fl.IntVar(&f.seeds, "seeds", 10, "seeds per stochastic policy")
	fl.IntVar(&f.resamples, "bootstrap", 1000, "bootstrap resamples of tasks for standard errors")
	fl.IntVar(&f.workers, "workers", 0, "parallel replays (0: one per CPU, or 32 with the learned policy)")
	fl.StringVar(&f.reportPath, "report", "", "write the HTML report to this file")
	fl.StringVar(&f.jsonFile, "json-file", "", "also write the JSON summary to this file")
	fl.StringVar(&f.viewTree, "view-tree", "", "tree id shown in the report's viewer (default: the first tree with a fix)")
	fl.StringVar(&f.viewPolicy, "view-policy", "", "policy shown in the viewer (default: learned if evaluated, else passrate)")
	return c
}

// evalCorpusDirs checks --corpus (comma-separated folders) and --split.
func evalCorpusDirs(dirs, split string) ([]string, error) {
	if dirs == "" {
		return nil, badInput("--corpus is required")
	}
	if err := checkSplit("--split", split); err != nil {
		return nil, err
	}
	var list []string
	for _, d := range strings.Split(dirs, ",") {
		if d = strings.TrimSpace(d); d != "" {
			list = append(list, d)
		}
	}
	return list, checkCorpusDirs("--corpus", list)
}

// evalOpenSplit opens a reader of one split's trees that decodes what
// pols read.
func evalOpenSplit(dirs []string, split string, pols []eval.Policy) (*corpus.TreeReader, error) {
	return corpus.OpenTrees(dirs, corpus.ReadOptions{Split: split, Columns: eval.ColumnsFor(pols)})
}

// evalNoTrees turns eval.ErrNoTrees into bad input naming the corpus and
// split.
func evalNoTrees(err error, corpusFlag, split string) error {
	if errors.Is(err, eval.ErrNoTrees) {
		return badInput("corpus %s has no tree in split %q", corpusFlag, split)
	}
	return err
}

// firstTree passes a source through, remembering the smallest tree id: the
// tree the report's viewer shows by default.
type firstTree struct {
	eval.Source
	id    string // the smallest tree id
	fixID string // the smallest id of a tree that contains a fix
}

func (s *firstTree) Next() (*corpus.Tree, error) {
	t, err := s.Source.Next()
	if err != nil {
		return t, err
	}
	if s.id == "" || t.ID < s.id {
		s.id = t.ID
	}
	if s.fixID == "" || t.ID < s.fixID {
		for i := range t.Nodes {
			if t.Nodes[i].Exec.Solved() {
				s.fixID = t.ID
				break
			}
		}
	}
	return t, err
}

// view is the tree the report's viewer shows by default: the first tree
// with a fix (a search that ends in one shows the most), else the first.
func (s *firstTree) view() string {
	if s.fixID != "" {
		return s.fixID
	}
	return s.id
}

// evalLoadParams reads a --params file (empty path: no params).
func evalLoadParams(path string) (policy.ParamSet, error) {
	if path == "" {
		return policy.ParamSet{}, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, badInput("--params: %v", err)
	}
	defer fh.Close()
	ps, err := policy.ReadParamSet(fh)
	if err != nil {
		return nil, badInput("--params %s: %v", path, err)
	}
	return ps, nil
}

// evalBuildPolicies builds the policies named by flag (--policies or
// --policy); release frees a learned scorer.
func evalBuildPolicies(ctx context.Context, flag string, names []string, ps policy.ParamSet, checkpoint string, lopts ...policy.LearnedOption) (pols []eval.Policy, release func(), err error) {
	release = func() {}
	var shared *loadedScorer // one compiled model for learned and hybrid
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			return nil, release, badInput("%s: %s given twice", flag, name)
		}
		seen[name] = true
		if policy.NeedsScorer(name) {
			if shared == nil {
				if shared, release, err = evalLoadScorer(ctx, name, checkpoint); err != nil {
					return nil, release, err
				}
			}
			p, err := policy.NewScored(name, ps[name], shared.batcher(), lopts...)
			if err != nil {
				return nil, release, badInput("%s: %v", flag, err)
			}
			pols = append(pols, eval.Policy{Policy: p, Params: ps[name]})
			continue
		}
		p, err := policy.New(name, ps[name])
		if err != nil {
			return nil, release, badInput("%s: %v", flag, err)
		}
		pols = append(pols, eval.Policy{Policy: p, Params: ps[name]})
	}
	return pols, release, nil
}

// loadedScorer is a checkpoint's compiled model, shared by the scored
// policies of one command, each through its own batcher.
type loadedScorer struct {
	model    policy.Scorer
	batchers []*policy.Batcher
}

// batcher returns a new batcher over the model for one policy. Concurrent
// episodes of that policy share it: their edges go into one execution
// instead of one tiny call per expansion. Policies do not share one: the
// model encodes a parent's edits together, and two policies asking for the
// same parent in one batch would score a group holding each edit twice.
func (l *loadedScorer) batcher() policy.Scorer {
	b, err := policy.NewBatcher(l.model, policy.BatchOptions{MaxEdges: 256, MaxWait: 2 * time.Millisecond})
	if err != nil {
		return l.model // only for invalid options, which these are not
	}
	l.batchers = append(l.batchers, b)
	return b
}

// evalLoadScorer loads the checkpoint's model for the scored policy name;
// release closes its batchers and frees it.
func evalLoadScorer(ctx context.Context, name, checkpoint string) (*loadedScorer, func(), error) {
	release := func() {}
	sc, free, err := loadLearnedScorer(ctx, checkpoint)
	if err != nil {
		if checkpoint == "" {
			return nil, release, fmt.Errorf("policy %s: %w", name, err)
		}
		return nil, release, fmt.Errorf("load checkpoint %s: %w", checkpoint, err)
	}
	l := &loadedScorer{model: sc}
	return l, func() {
		for _, b := range l.batchers {
			_ = b.Close()
		}
		free()
	}, nil
}

func runEval(cmd *cobra.Command, f *evalFlags) error {
	ctx := cmd.Context()
	budgets, err := parseBudgets("budgets", f.budgets)
	if err != nil {
		return err
	}
	if f.seeds < 1 || f.resamples < 1 {
		return badInput("--seeds and --bootstrap must be >= 1")
	}
	if f.budget < 0 || f.budget > maxBudget {
		return badInput("--budget %d: want 0 (no cap) up to %d", f.budget, maxBudget)
	}
	workers, err := resolveWorkers(f.workers)
	if err != nil {
		return err
	}
	var names []string
	for _, n := range strings.Split(f.policies, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if !cmd.Flags().Changed("policies") && f.checkpoint == "" {
		// The default list includes learned and hybrid: a build without an
		// embedded checkpoint evaluates the baselines and says why they are absent.
		if _, err := checkpoints.DefaultPath(); errors.Is(err, checkpoints.ErrNoDefault) {
			slog.Warn("policies learned and hybrid left out", "reason", err)
			names = slices.DeleteFunc(names, policy.NeedsScorer)
		}
	}
	if len(names) == 0 {
		return badInput("--policies is empty")
	}
	ps, err := evalLoadParams(f.params)
	if err != nil {
		return err
	}
	dirs, err := evalCorpusDirs(f.corpus, f.split)
	if err != nil {
		return err
	}
	var lopts []policy.LearnedOption
	switch f.scoreBy {
	case "s":
	case "p1":
		lopts = append(lopts, policy.ScoreByP1())
	default:
		return badInput("--score %q: want s or p1", f.scoreBy)
	}
	if f.perDepth {
		lopts = append(lopts, policy.RankWithinDepth())
	}
	if !slices.Contains(names, "learned") && (f.scoreBy != "s" || f.perDepth) {
		return badInput("--score and --rank-within-depth change the learned policy, which --policies leaves out")
	}
	pols, release, err := evalBuildPolicies(ctx, "--policies", names, ps, f.checkpoint, lopts...)
	defer release()
	if err != nil {
		return err
	}
	if slices.ContainsFunc(names, policy.NeedsScorer) && f.workers == 0 {
		// Episodes of the learned policy wait on the shared scorer: more of
		// them in flight fill its batches.
		workers = 32
	}
	src, err := evalOpenSplit(dirs, f.split, pols)
	if err != nil {
		return err
	}
	defer src.Close()
	first := &firstTree{Source: src}
	res, err := eval.Evaluate(ctx, first, pols, eval.Options{
		Budgets: budgets, MaxExpansions: f.budget, Seeds: f.seeds, Resamples: f.resamples, Workers: workers,
	})
	if err != nil {
		return evalNoTrees(err, f.corpus, f.split)
	}
	rep := report.New("triage eval: "+f.split+" split of "+f.corpus, f.corpus, f.split, res)
	if f.reportPath != "" {
		view := first.view()
		if f.viewTree != "" {
			view = f.viewTree
		}
		if err := writeEvalHTML(ctx, rep, dirs, view, pols, f); err != nil {
			return err
		}
	}
	if f.jsonFile != "" {
		if err := evalWriteJSON(f.jsonFile, report.JSON(rep)); err != nil {
			return err
		}
	}
	if jsonFlag(cmd) && !f.jsonToFile {
		return printJSON(cmd.OutOrStdout(), report.JSON(rep))
	}
	return report.WriteMarkdown(cmd.OutOrStdout(), rep)
}

// writeEvalHTML writes the HTML report, its viewer showing the tree with
// id viewTree (read again, whole) searched by --view-policy.
func writeEvalHTML(ctx context.Context, rep *report.Report, dirs []string, viewTree string, pols []eval.Policy, f *evalFlags) error {
	tree, err := evalReadTree(dirs, f.split, viewTree)
	if err != nil {
		return err
	}
	want := f.viewPolicy
	if want == "" {
		want = "passrate"
		for _, p := range pols {
			if p.Policy.Name() == "learned" {
				want = "learned"
			}
		}
	}
	var vp policy.Policy
	for _, p := range pols {
		if p.Policy.Name() == want {
			vp = p.Policy
		}
	}
	if vp == nil {
		var err error
		if vp, err = policy.New(want, nil); err != nil {
			return badInput("--view-policy: %v", err)
		}
	}
	res, err := eval.Trace(ctx, tree, vp)
	if err != nil {
		return err
	}
	if rep.Viewer, err = report.NewViewer(tree, res); err != nil {
		return err
	}
	return evalWriteFile(f.reportPath, func(fh *os.File) error { return report.WriteHTML(fh, rep) })
}

// evalReadTree reads the tree with id from the split, every column.
func evalReadTree(dirs []string, split, id string) (*corpus.Tree, error) {
	r, err := corpus.OpenTrees(dirs, corpus.ReadOptions{Split: split, TreeID: id, Columns: corpus.AllColumns})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t, err := r.Next()
	if errors.Is(err, io.EOF) {
		return nil, badInput("--view-tree %s: no such tree in split %s", id, split)
	}
	return t, err
}

func evalWriteJSON(path string, v any) error {
	return evalWriteFile(path, func(fh *os.File) error { return printJSON(fh, v) })
}

// evalWriteFile writes path through a temporary file renamed when done.
func evalWriteFile(path string, write func(*os.File) error) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	fh, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(fh.Name())
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(fh.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
