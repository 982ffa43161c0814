package corpus

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
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
	WriteSkipped(w, s.Skipped)
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

// WriteSkipped lists the tasks a build left out.
func WriteSkipped(w io.Writer, skipped []TaskRecord) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(w, "%d tasks left out:\n", len(skipped))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range skipped {
		fmt.Fprintf(tw, "  %s\t%s\n", t.TaskID, t.Skipped)
	}
	tw.Flush()
}

// WriteText writes where a build's time went, under title.
func (b *Breakdown) WriteText(w io.Writer, title string) {
	slotS := float64(b.Slots) * b.WallSeconds
	fmt.Fprintf(w, "%s: wall %.1f s, %d sandbox workers, %d trees, %d nodes, %.1f nodes/s", title,
		b.WallSeconds, b.Slots, b.Trees, b.Nodes, b.NodesPerSecond())
	if b.Sessions > 1 {
		fmt.Fprintf(w, " (%d sessions)", b.Sessions)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	perCall := func(r RunTime) string {
		if r.Runs == 0 {
			return ""
		}
		return fmt.Sprintf("%.1f ms each", 1000*r.Seconds/float64(r.Runs))
	}
	fmt.Fprintf(tw, "  input checks\t%.1f s\twall, before the first tree\n", b.ValidateSeconds)
	fmt.Fprintf(tw, "  roots\t%.1f s\tsummed over tasks (root making, runs included)\n", b.RootsSeconds)
	fmt.Fprintf(tw, "  propose\t%.1f s\t%d calls, %s (overlaps runs)\n", b.Propose.Seconds, b.Propose.Runs, perCall(b.Propose))
	fmt.Fprintf(tw, "  revise\t%.1f s\t%d calls, %s\n", b.Revise.Seconds, b.Revise.Runs, perCall(b.Revise))
	ex := b.ExecuteTotal()
	fmt.Fprintf(tw, "  runs\t%.1f s\t%d runs, %s\n", ex.Seconds, ex.Runs, perCall(ex))
	for _, s := range b.Statuses() {
		r := b.Execute[s]
		fmt.Fprintf(tw, "    %s\t%.1f s\t%d runs, %s\n", s, r.Seconds, r.Runs, perCall(*r))
	}
	for _, ph := range []struct {
		name string
		r    RunTime
	}{{"input checks", b.CheckRuns}, {"root making", b.RootRuns}, {"trees", b.TreeRuns}} {
		fmt.Fprintf(tw, "    for %s\t%.1f s\t%d runs, %s\n", ph.name, ph.r.Seconds, ph.r.Runs, perCall(ph.r))
	}
	fmt.Fprintf(tw, "  with coverage\t%.1f s\t%d runs, %s\n", b.Coverage.Seconds, b.Coverage.Runs, perCall(b.Coverage))
	fmt.Fprintf(tw, "  without coverage\t%.1f s\t%d runs, %s\n", b.Plain.Seconds, b.Plain.Runs, perCall(b.Plain))
	fmt.Fprintf(tw, "  cache hits\t%d\n", b.CacheHits)
	fmt.Fprintf(tw, "  write\t%.1f s\tshards and manifests, off the critical path\n", b.WriteSeconds)
	if b.BusySeconds > 0 {
		fmt.Fprintf(tw, "  per-run overhead\t%.1f s\tsandbox slots held beyond the runs themselves\n", b.BusySeconds-ex.Seconds)
	}
	if slotS > 0 {
		fmt.Fprintf(tw, "  idle\t%.1f s\tof %.1f worker-seconds (%.1f%%)\n", b.IdleSeconds, slotS, 100*b.IdleSeconds/slotS)
	}
	tw.Flush()
}
