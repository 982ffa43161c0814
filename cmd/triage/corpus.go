package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/manifest"
	"triage/corpus/shard"
	"triage/corpus/stats"
	"triage/corpus/taskset"
)

func newCorpusStatsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stats DIR...",
		Short: "Summarize a corpus: trees, nodes, splits, fixes, solve distances, tokens",
		Long: `Stats reads the Parquet shards of one or more corpus folders (their union:
each tree id once) and prints trees, nodes and tasks per split, the fraction
of trees with a fix, the same per task source (bundled, mbpp, ...), the histogram of the shallowest fix's depth, the edge
label histogram, mean nodes per root, output tokens, mean pass rate, edit
count and bytes on disk; from the manifests, the tasks the build left out,
the per-task time limits and where the build's time went. --json prints the same as one object (keys include
trees, nodes, solved_trees, splits, sources, time, skipped_tasks, time_limits).`,
		Example: `  triage corpus stats out/demo/corpus
  triage corpus stats out/slice-0 out/slice-1 --json | jq .time`,
		Args: corpusFolderArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := shard.CheckDirs(args); err != nil {
				return folderArgNames.flagged(err)
			}
			s, err := stats.ComputeStats(args...)
			if err != nil {
				return err
			}
			return printResult(cmd, s, s.WriteText)
		},
	}
}

func newCorpusMergeCmd() *cobra.Command {
	var out string
	var rows int64
	var splits []string
	c := &cobra.Command{
		Use:   "merge --out DIR IN...",
		Short: "Merge corpus folders (e.g. the slices of a --shard i/n build) into one",
		Long: `Merge writes the union of the input corpus folders into a new folder: each
tree id once (the first input's copy wins), new shards of whole trees of at
most --rows-per-shard rows, and a manifest. Readers (LoadTrees, stats) also
accept several folders directly; merge makes one self-contained folder.
Every input must be a corpus folder (shards or a manifest) and every input
manifest must hold the same build settings but for the slice (i/n) and
shard layout; builds with other settings exit 2 (read them side by side:
every command takes several corpus folders). Slices of an i/n build that no
input holds are printed and recorded in the manifest (missing_slices).
--split keeps only the trees of the given splits (recorded as splits):
a corpus's test split to ship or read apart. --out must be new or empty.`,
		Example: `  triage corpus merge --out out/corpus out/slice-0 out/slice-1
  triage corpus merge --out out/merged --rows-per-shard 500000 out/a out/b --json
  triage corpus merge --out corpus/bundled/test-trees --split test out/corpora/bundled`,
		Args: corpusFolderArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput("--out is required")
			}
			if rows < 1 {
				return badInput("--rows-per-shard must be ≥ 1, got %d", rows)
			}
			if err := shard.CheckDirs(args); err != nil {
				return folderArgNames.flagged(err)
			}
			for _, d := range args {
				if taskset.SamePath(d, out) {
					return badInput("--out %s is also an input folder", out)
				}
			}
			for _, sp := range splits {
				if sp != corpus.SplitTrain && sp != corpus.SplitVal && sp != corpus.SplitTest {
					return badInput("--split %q: want train, val or test", sp)
				}
			}
			cleanup := removeOnFailure(out)
			man, err := manifest.MergeSplits(out, args, rows, splits)
			cleanup(err)
			if err != nil {
				return err
			}
			if jsonFlag(cmd) {
				return printJSON(os.Stdout, man)
			}
			fmt.Printf("%s: %d shards, %d trees, %d rows\n", out, len(man.Shards), man.Trees, man.Rows)
			if man.MissingSlices != "" {
				fmt.Printf("slices missing: %s (their tasks are not in the merged corpus)\n", man.MissingSlices)
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "output folder (new or empty)")
	c.Flags().Int64Var(&rows, "rows-per-shard", manifest.DefaultMergeRowsPerShard, "rows per output shard (whole trees)")
	c.Flags().StringSliceVar(&splits, "split", nil, "keep only the trees of these splits (comma-separated: train, val, test), e.g. a test split to ship")
	return c
}

// newCorpusReplicateCmd is a hidden command for scale tests: it makes a
// large corpus from a small one.
func newCorpusReplicateCmd() *cobra.Command {
	var out string
	var opts manifest.ReplicateOptions
	c := &cobra.Command{
		Use:    "replicate --copies N --out DIR IN...",
		Short:  "Make a large corpus for scale tests: N copies of every tree under new tree and task ids",
		Hidden: true,
		Long: `Replicate writes --copies copies of every tree of the input corpus folders
into a new folder, copy c under the tree and task ids suffixed "~cNNNNN" (new
trees of new tasks, in the same split unless --split puts them all in one),
over --shards shard files. Figures of 'triage eval' on the copy equal those of
the input up to rounding (with more tasks, so smaller standard errors); it
exists to measure 'corpus stats', 'eval' and 'tune' at scale (see README,
"Scale").`,
		Example: `  triage corpus replicate --copies 130 --shards 32 --out out/big out/demo/corpus`,
		Args:    corpusFolderArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Validate(out, args); err != nil {
				return replicateFlagNames.flagged(err)
			}
			cleanup := removeOnFailure(out)
			rep, err := manifest.Replicate(cmd.Context(), out, args, opts)
			cleanup(err)
			if err != nil {
				return err
			}
			if jsonFlag(cmd) {
				return printJSON(os.Stdout, rep)
			}
			fmt.Printf("%s: %d shards, %d trees, %d rows, %d bytes\n", out, rep.Shards, rep.Trees, rep.Rows, rep.Bytes)
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "output folder (new or empty)")
	c.Flags().IntVar(&opts.Copies, "copies", 0, "copies of every tree (required)")
	c.Flags().IntVar(&opts.Shards, "shards", 0, "shard files written (0: one per copy, at most 64)")
	c.Flags().StringVar(&opts.Split, "split", "", "put every copy in this split (default: keep each tree's)")
	c.Flags().Int64Var(&opts.RowsPerGroup, "rows-per-group", shard.DefaultRowsPerGroup, "rows per Parquet row group")
	return c
}

// folderArgNames name the corpus folders of the commands that take them as
// arguments.
var folderArgNames = flagNames{"Corpus": "corpus folder"}

// replicateFlagNames are the flags of corpus replicate's options.
var replicateFlagNames = folderArgNames.with(flagNames{"Out": "--out", "Copies": "--copies", "Shards": "--shards",
	"RowsPerGroup": "--rows-per-group", "Split": "--split"})

// corpusFolderArgs is the argument check of commands that read corpus
// folders given as arguments.
func corpusFolderArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return badInput("%s needs at least one corpus folder", c.CommandPath())
	}
	return nil
}

// removeOnFailure returns a function that removes the output folder out
// when the command failed (err != nil) and out did not exist before: a
// refused or failed merge leaves nothing behind.
func removeOnFailure(out string) func(err error) {
	_, statErr := os.Stat(out)
	existed := !errors.Is(statErr, fs.ErrNotExist)
	return func(err error) {
		if err != nil && !existed {
			_ = os.RemoveAll(out)
		}
	}
}
