package main

import (
	"github.com/spf13/cobra"

	"triage/corpus"
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
			if err := corpus.CheckDirs("corpus folder", args); err != nil {
				return err
			}
			s, err := corpus.ComputeStats(args...)
			if err != nil {
				return err
			}
			return printResult(cmd, s, s.WriteText)
		},
	}
}
