package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"triage/corpus"
)

func init() { register("corpus", newCorpusStatsCmd) }

func newCorpusStatsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stats DIR...",
		Short: "Summarize a corpus: trees, nodes, splits, fixes, solve distances, tokens",
		Long: `Stats reads the Parquet shards of one or more corpus folders (their union:
each tree id once) and prints trees, nodes and tasks per split, the fraction
of trees with a fix, the histogram of the shallowest fix's depth, the edge
label histogram, mean nodes per root, output tokens, mean pass rate, edit
count and bytes on disk. --json prints the same as one object (keys include
trees, nodes, solved_trees, splits).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, d := range args {
				if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
					return badInput("corpus folder %s does not exist", d)
				}
			}
			s, err := corpus.ComputeStats(args...)
			if err != nil {
				return err
			}
			if flagJSON {
				return printJSON(os.Stdout, s)
			}
			return printStats(os.Stdout, s)
		},
	}
}

func printStats(w io.Writer, s *corpus.Stats) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "shards\t%d\t(%d bytes, %d uncompressed, %.2fx)\n", s.Shards, s.Bytes, s.Uncompressed, s.Compression)
	fmt.Fprintf(tw, "tasks\t%d\n", s.Tasks)
	fmt.Fprintf(tw, "trees\t%d\n", s.Trees)
	fmt.Fprintf(tw, "nodes\t%d\t(%.1f per root)\n", s.Nodes, s.MeanNodesPerRoot)
	fmt.Fprintf(tw, "solved trees\t%d\t(%.1f%%)\n", s.SolvedTrees, 100*s.SolvedFrac)
	fmt.Fprintf(tw, "edits\t%d\n", s.Edits)
	fmt.Fprintf(tw, "mean pass rate\t%.4f\n", s.MeanPassRate)
	est := ""
	if s.TokensEstimated {
		est = " (estimated)"
	}
	fmt.Fprintf(tw, "output tokens\t%d\t(propose %d, revise %d)%s\n", s.OutputTokens, s.ProposeTokens, s.ReviseTokens, est)
	fmt.Fprintf(tw, "failed proposals / revisions\t%d / %d\n", s.ProposeFailed, s.ReviseFailed)
	splits := make([]string, 0, len(s.Splits))
	for k := range s.Splits {
		splits = append(splits, k)
	}
	sort.Strings(splits)
	for _, k := range splits {
		sp := s.Splits[k]
		fmt.Fprintf(tw, "split %s\t%d tasks, %d trees, %d nodes, %d solved\n", k, sp.Tasks, sp.Trees, sp.Nodes, sp.SolvedTrees)
	}
	fmt.Fprintln(tw, "shallowest fix depth:")
	for _, k := range corpus.SortedKeys(s.SolveDepth) {
		fmt.Fprintf(tw, "  %s\t%d\n", k, s.SolveDepth[k])
	}
	fmt.Fprintln(tw, "edge label t:")
	for _, k := range corpus.SortedKeys(s.EdgeT) {
		fmt.Fprintf(tw, "  %s\t%d\n", k, s.EdgeT[k])
	}
	return tw.Flush()
}
