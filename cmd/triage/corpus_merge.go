package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"triage/corpus"
)

func init() { register("corpus", newCorpusMergeCmd) }

func newCorpusMergeCmd() *cobra.Command {
	var out string
	var rows int64
	c := &cobra.Command{
		Use:   "merge --out DIR IN...",
		Short: "Merge corpus folders (e.g. the slices of a --shard i/n build) into one",
		Long: `Merge writes the union of the input corpus folders into a new folder: each
tree id once (the first input's copy wins), new shards of whole trees of at
most --rows-per-shard rows, and a manifest. Readers (LoadTrees, stats) also
accept several folders directly; merge makes one self-contained folder.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput("--out is required")
			}
			for _, d := range args {
				if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
					return badInput("corpus folder %s does not exist", d)
				}
			}
			man, err := corpus.Merge(out, args, rows)
			if errors.Is(err, corpus.ErrOutputExists) {
				return badInput("%v", err)
			}
			if err != nil {
				return err
			}
			if flagJSON {
				return printJSON(os.Stdout, man)
			}
			fmt.Printf("%s: %d shards, %d trees, %d rows\n", out, len(man.Shards), man.Trees, man.Rows)
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "output folder (new or empty)")
	c.Flags().Int64Var(&rows, "rows-per-shard", corpus.DefaultMergeRowsPerShard, "rows per output shard (whole trees)")
	return c
}
