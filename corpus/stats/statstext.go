package stats

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"triage/corpus/manifest"
)

// WriteText writes the statistics as the text `triage corpus stats`
// prints.
func (s *Stats) WriteText(w io.Writer) error {
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
	writeGroups(tw, "split", s.Splits)
	writeGroups(tw, "source", s.Sources)
	fmt.Fprintln(tw, "shallowest fix depth:")
	for _, k := range SortedKeys(s.SolveDepth) {
		fmt.Fprintf(tw, "  %s\t%d\n", k, s.SolveDepth[k])
	}
	fmt.Fprintln(tw, "edge label t:")
	for _, k := range SortedKeys(s.EdgeT) {
		fmt.Fprintf(tw, "  %s\t%d\n", k, s.EdgeT[k])
	}
	fmt.Fprintln(tw, "run statuses:")
	for _, k := range SortedKeys(s.Statuses) {
		fmt.Fprintf(tw, "  %s\t%d\n", k, s.Statuses[k])
	}
	if l := s.Limits; l != nil {
		clock := "wall-clock time"
		if l.Settings.CPU() {
			clock = "CPU time"
		}
		fmt.Fprintf(tw, "time limits\t%d tasks, on %s: limit %.0f / %.0f / %.0f ms (min / median / max), reference %.1f / %.1f / %.1f ms\n",
			l.Tasks, clock, l.LimitMS[0], l.LimitMS[1], l.LimitMS[2], l.ReferenceMS[0], l.ReferenceMS[1], l.ReferenceMS[2])
		if l.ProgramMS != nil && l.HarnessMS != nil {
			p, h := *l.ProgramMS, *l.HarnessMS
			fmt.Fprintf(tw, "\treference's import and test bodies %.1f / %.1f / %.1f ms, pytest's part %.1f / %.1f / %.1f ms\n",
				p[0], p[1], p[2], h[0], h[1], h[2])
		}
		if pl := l.ProgramLimitMS; pl != nil {
			fmt.Fprintf(tw, "	budget of the program's own code (import and test bodies) %.0f / %.0f / %.0f ms\n", pl[0], pl[1], pl[2])
		}
	}
	if len(s.Protections) > 0 {
		fmt.Fprintf(tw, "sandbox\t%s\n", strings.Join(s.Protections, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	manifest.WriteSkipped(w, s.Skipped)
	if s.Time != nil {
		s.Time.WriteText(w, "build time (from the manifests)")
	}
	return nil
}

// writeGroups writes one line per split or source, by name.
func writeGroups(w io.Writer, kind string, groups map[string]*SplitStats) {
	names := make([]string, 0, len(groups))
	for k := range groups {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		g := groups[k]
		fmt.Fprintf(w, "%s %s\t%d tasks, %d trees, %d nodes, %d solved\n", kind, k, g.Tasks, g.Trees, g.Nodes, g.SolvedTrees)
	}
}
