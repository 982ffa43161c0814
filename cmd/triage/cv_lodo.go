package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"triage/policy"
	"triage/search/eval/report"
	"triage/train"
)

// lodoFlags are the flags of `triage cv --lodo`.
type lodoFlags struct {
	on, allSplits, noHybrid bool
	trainSeeds, hybridGrid  string
}

func (l *lodoFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.BoolVar(&l.on, "lodo", false, "leave one dataset out: --corpus NAME=DIR[,DIR...] per dataset; train on each, score on the others")
	fl.StringVar(&l.trainSeeds, "train-seeds", "", "with --lodo: training seeds, one model each, e.g. 1,2,3 (default: --seed)")
	fl.BoolVar(&l.allSplits, "all-splits", false, "with --lodo: score every split of the held-out dataset, not only its test split")
	fl.BoolVar(&l.noHybrid, "no-hybrid", false, "with --lodo: leave the hybrid policy out")
	fl.StringVar(&l.hybridGrid, "hybrid-grid", train.DefaultHybridGrid, "with --lodo: grid the hybrid is tuned over on the training dataset's val split")
}

// parseDatasets reads --corpus entries of --lodo: NAME=DIR starts a
// dataset, a bare DIR adds a folder to the dataset before it (so
// `--corpus a=x,y --corpus b=z` is two datasets).
func parseDatasets(entries []string) (names []string, dirs [][]string, err error) {
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		name, dir, named := strings.Cut(e, "=")
		switch {
		case named && (name == "" || dir == ""):
			return nil, nil, badInput("--corpus %q: want NAME=DIR", e)
		case named:
			if slices.Contains(names, name) {
				return nil, nil, badInput("--corpus: dataset %s given twice", name)
			}
			names, dirs = append(names, name), append(dirs, []string{dir})
		case len(names) == 0:
			return nil, nil, badInput("--corpus %q: with --lodo the first folder needs a dataset name, NAME=DIR", e)
		default:
			dirs[len(dirs)-1] = append(dirs[len(dirs)-1], e)
		}
	}
	if len(names) < 2 {
		return nil, nil, badInput("--lodo needs at least two datasets (--corpus NAME=DIR,... per dataset), got %d", len(names))
	}
	return names, dirs, nil
}

// runLODO is `triage cv --lodo`.
func runLODO(cmd *cobra.Command, f *trainFlags, l *lodoFlags, ps policy.ParamSet, seeds, resamples int, budgets []int, jsonFile string) error {
	names, groups, err := parseDatasets(f.corpus)
	if err != nil {
		return err
	}
	if len(ps) > 0 {
		return badInput("--params: with --lodo every baseline is tuned on the training dataset's val split")
	}
	var tseeds []uint64
	if l.trainSeeds != "" {
		is, err := parseInts("train-seeds", l.trainSeeds)
		if err != nil {
			return err
		}
		for _, s := range is {
			tseeds = append(tseeds, uint64(s))
		}
	}
	if _, err := policy.ParseGrid(l.hybridGrid); err != nil {
		return badInput("--hybrid-grid: %v", err)
	}
	f.corpus = slices.Concat(groups...)
	_, o, be, err := trainSetup(f)
	if err != nil {
		return err
	}
	defer be.Finalize()
	ds, err := train.FolderDatasets(names, groups)
	if err != nil {
		return badInput("%v", err)
	}
	for i := range ds {
		if ds[i].Record, err = train.RecordSources(groups[i]); err != nil {
			return err
		}
	}
	env := train.Env{Backend: be, Out: f.out, Versions: trainVersions(), BuildQwen3: train.BuildQwen3, Command: commandLine()}
	lo := train.LODOOptions{Train: o, TrainSeeds: tseeds, Baselines: policy.Baselines, HybridGrid: l.hybridGrid,
		NoHybrid: l.noHybrid, AllSplits: l.allSplits, Seeds: seeds, Budgets: budgets, Resamples: resamples}
	dirs, err := train.LeaveOneDatasetOut(cmd.Context(), ds, lo, env)
	if errors.Is(err, train.ErrNoValFix) {
		return badInput("%v", err)
	}
	if err != nil {
		return err
	}
	if jsonFile != "" {
		if err := report.WriteJSONFile(jsonFile, map[string]any{"lodo": dirs}); err != nil {
			return err
		}
	}
	if jsonFlag(cmd) {
		return printJSON(cmd.OutOrStdout(), map[string]any{"lodo": dirs})
	}
	for _, d := range dirs {
		writeLODO(cmd.OutOrStdout(), d, strconv.Itoa(slices.Max(budgets)))
	}
	return nil
}

// writeLODO prints one direction: the tuned baselines, E[T] and tokens of
// every policy (learned and hybrid as mean ± sd over the training seeds),
// and the paired ratios against every baseline per seed.
func writeLODO(w io.Writer, d train.LODODirection, maxB string) {
	fmt.Fprintf(w, "## train on %s, score on %s (%s split: %d trees, %d tasks)\n\n", d.Train, d.Test, d.TestSplit, d.Trees, d.Tasks)
	var tuned []string
	for _, n := range sortedNames(d.Tuned) {
		tuned = append(tuned, n+" "+d.Tuned[n].String())
	}
	fmt.Fprintf(w, "Tuned on %s's val split: %s.\n\n", d.Train, strings.Join(tuned, "; "))
	for _, r := range d.Runs {
		fmt.Fprintf(w, "- seed %d: checkpoint %s (step %d, val E[T] %.2f), hybrid %s\n", r.Seed, r.Checkpoint, r.BestStep, r.Val.ET, r.Hybrid.String())
	}
	fmt.Fprintf(w, "\n| policy | E[T] | tokens | S(%s) |\n|---|---|---|---|\n", maxB)
	for _, name := range []string{"learned", "hybrid"} {
		et, ok := d.Spread[name+" E[T]"]
		if !ok {
			continue
		}
		tok := d.Spread[name+" tokens"]
		sv := d.Spread[name+" S"]
		fmt.Fprintf(w, "| %s (%d seeds) | %.2f ± %.2f sd (%s) | %.0f ± %.0f sd | %.3f ± %.3f sd |\n", name, len(et.Each), et.Mean, et.SD, joinFloats(et.Each), tok.Mean, tok.SD, sv.Mean, sv.SD)
	}
	for _, name := range policy.Baselines {
		s, ok := d.Baselines[name]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %.2f ± %.2f | %.0f ± %.0f | %.3f |\n", name, s.ET, s.ETSE, s.Tokens, s.TokensSE, s.S[maxB])
	}
	fmt.Fprint(w, "\nRatio of E[T] to each baseline over the trees both solve, mean ± sd over the training seeds (each seed below):\n\n")
	fmt.Fprint(w, "| policy | baseline | ratio |\n|---|---|---|\n")
	for _, name := range []string{"learned", "hybrid"} {
		for _, b := range policy.Baselines {
			if sp, ok := d.Spread[name+" / "+b]; ok {
				fmt.Fprintf(w, "| %s | %s | %.3f ± %.3f (%s) |\n", name, b, sp.Mean, sp.SD, joinFloats(sp.Each))
			}
		}
	}
	fmt.Fprint(w, "\nPaired by tree, per seed (95% interval from a bootstrap clustered by task):\n\n")
	fmt.Fprint(w, "| policy | seed | baseline | ΔE[T] | ratio | 95% | trees |\n|---|---|---|---|---|---|---|\n")
	for _, r := range d.Runs {
		for _, p := range r.Paired {
			fmt.Fprintf(w, "| %s | %d | %s | %+.2f ± %.2f | %.3f | %.3f–%.3f | %d |\n", p.A, r.Seed, p.B, p.Diff, p.DiffSE, p.Ratio, p.RatioLo, p.RatioHi, p.Trees)
		}
	}
	fmt.Fprintln(w)
}

func sortedNames(m map[string]policy.Params) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func joinFloats(xs []float64) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(s, ", ")
}
