package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"triage/corpus"
	"triage/corpus/taskset"
)

func newCorpusMergeCmd() *cobra.Command {
	var out string
	var rows int64
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
--out must be new or empty.`,
		Example: `  triage corpus merge --out out/corpus out/slice-0 out/slice-1
  triage corpus merge --out out/merged --rows-per-shard 500000 out/a out/b --json`,
		Args: corpusFolderArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput("--out is required")
			}
			if rows < 1 {
				return badInput("--rows-per-shard must be ≥ 1, got %d", rows)
			}
			if err := corpus.CheckDirs("corpus folder", args); err != nil {
				return err
			}
			for _, d := range args {
				if taskset.SamePath(d, out) {
					return badInput("--out %s is also an input folder", out)
				}
			}
			cleanup := removeOnFailure(out)
			man, err := corpus.Merge(out, args, rows)
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
	c.Flags().Int64Var(&rows, "rows-per-shard", corpus.DefaultMergeRowsPerShard, "rows per output shard (whole trees)")
	return c
}
