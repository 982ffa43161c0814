package manifest

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"triage/corpus"
)

// RunTime counts runs and the seconds they took.
type RunTime struct {
	Runs    int64   `json:"runs"`
	Seconds float64 `json:"seconds"`
}

// Add adds o to r.
func (r *RunTime) Add(o RunTime) { r.Runs += o.Runs; r.Seconds += o.Seconds }

// Breakdown says where a build's time went. Stage seconds are summed over
// concurrent calls, so together they exceed the wall time; the executor
// figures are in slot-seconds (Slots sandbox workers × wall).
type Breakdown struct {
	WallSeconds float64 `json:"wall_seconds"`
	Slots       int     `json:"executor_slots"`
	Nodes       int64   `json:"nodes"`
	Trees       int64   `json:"trees"`
	// Validate is the wall time of the input checks before any tree.
	ValidateSeconds float64 `json:"validate_seconds"`
	// Roots is the time spent making roots (RootsFunc), summed over tasks.
	RootsSeconds float64 `json:"roots_seconds"`
	// Runs by phase: the input checks (references and shipped roots, and
	// the reference's second timing when a task starts), root making and
	// the trees.
	CheckRuns RunTime `json:"check_runs"`
	RootRuns  RunTime `json:"root_runs"`
	TreeRuns  RunTime `json:"tree_runs"`
	// Propose and Revise are the proposer's calls.
	Propose RunTime `json:"propose"`
	Revise  RunTime `json:"revise"`
	// Execute counts sandbox runs by status with their run time
	// (Execution.DurationMS); Coverage the runs with per-test coverage
	// among them, and Plain the others.
	Execute   map[corpus.Status]*RunTime `json:"execute"`
	Coverage  RunTime                    `json:"coverage"`
	Plain     RunTime                    `json:"plain"`
	CacheHits int64                      `json:"cache_hits"`
	// Write is the time spent writing shards and manifests, off the
	// critical path.
	WriteSeconds float64 `json:"write_seconds"`
	// Busy is the time the executor's slots were held (runs plus their
	// per-run overhead), when the executor reports it; Idle is
	// Slots × wall − busy (or − run time when it does not).
	BusySeconds float64 `json:"executor_busy_seconds,omitempty"`
	IdleSeconds float64 `json:"executor_idle_seconds"`
	Sessions    int     `json:"sessions"`
}

// ExecuteTotal sums Execute over statuses.
func (b *Breakdown) ExecuteTotal() RunTime {
	var t RunTime
	for _, r := range b.Execute {
		t.Add(*r)
	}
	return t
}

// Statuses returns the statuses of Execute, most runs first.
func (b *Breakdown) Statuses() []corpus.Status {
	out := make([]corpus.Status, 0, len(b.Execute))
	for s := range b.Execute {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, c := b.Execute[out[i]], b.Execute[out[j]]
		if a.Runs != c.Runs {
			return a.Runs > c.Runs
		}
		return out[i] < out[j]
	})
	return out
}

// NodesPerSecond is nodes built per wall second.
func (b *Breakdown) NodesPerSecond() float64 {
	if b.WallSeconds <= 0 {
		return 0
	}
	return float64(b.Nodes) / b.WallSeconds
}

// Add accumulates o (another session of the same build) into b.
func (b *Breakdown) Add(o *Breakdown) {
	if o == nil {
		return
	}
	b.WallSeconds += o.WallSeconds
	b.Slots = max(b.Slots, o.Slots)
	b.Nodes += o.Nodes
	b.Trees += o.Trees
	b.ValidateSeconds += o.ValidateSeconds
	b.RootsSeconds += o.RootsSeconds
	b.CheckRuns.Add(o.CheckRuns)
	b.RootRuns.Add(o.RootRuns)
	b.TreeRuns.Add(o.TreeRuns)
	b.Propose.Add(o.Propose)
	b.Revise.Add(o.Revise)
	if b.Execute == nil {
		b.Execute = map[corpus.Status]*RunTime{}
	}
	for s, r := range o.Execute {
		if b.Execute[s] == nil {
			b.Execute[s] = &RunTime{}
		}
		b.Execute[s].Add(*r)
	}
	b.Coverage.Add(o.Coverage)
	b.Plain.Add(o.Plain)
	b.CacheHits += o.CacheHits
	b.WriteSeconds += o.WriteSeconds
	b.BusySeconds += o.BusySeconds
	b.IdleSeconds += o.IdleSeconds
	b.Sessions += o.Sessions
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
