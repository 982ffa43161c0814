package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"triage/corpus"
)

// newCorpusReplicateCmd is a hidden command for scale tests: it makes a
// large corpus from a small one.
func newCorpusReplicateCmd() *cobra.Command {
	var out string
	var opts corpus.ReplicateOptions
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
				return err
			}
			cleanup := removeOnFailure(out)
			rep, err := corpus.Replicate(cmd.Context(), out, args, opts)
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
	c.Flags().Int64Var(&opts.RowsPerGroup, "rows-per-group", corpus.DefaultRowsPerGroup, "rows per Parquet row group")
	return c
}
