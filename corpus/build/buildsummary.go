package build

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/schollz/progressbar/v3"

	"triage/corpus/manifest"
)

// BuildSummary is what `triage corpus build` prints: the corpus so far and
// this session's rate and CPU cost.
type BuildSummary struct {
	Out         string                `json:"out"`
	Complete    bool                  `json:"complete"`
	Shards      int                   `json:"shards"`
	Trees       int                   `json:"trees"`
	Rows        int64                 `json:"rows"`
	BuiltNodes  int64                 `json:"built_nodes"`
	WallSeconds float64               `json:"wall_seconds"`
	NodesPerSec float64               `json:"nodes_per_second"`
	Bytes       int64                 `json:"bytes"`
	Ratio       float64               `json:"compression_ratio"`
	Skipped     []manifest.TaskRecord `json:"skipped_tasks"`
	// CPU time of the build and its sandbox per node built, and the nodes/s
	// that makes on this machine's cores when nothing else runs (compare
	// bench sandbox's executor_cpu_capacity_suites_per_s).
	CPUMSPerNode         float64 `json:"cpu_ms_per_node"`
	CPUCapacityNodesPerS float64 `json:"cpu_capacity_nodes_per_s"`
	// Time is this session's breakdown; the manifest holds the sum over
	// sessions.
	Time *manifest.Breakdown `json:"time"`
}

// SummarizeBuild makes the summary of a build into out from its manifest,
// the nodes built in this session, its wall time and the CPU seconds it
// spent.
func SummarizeBuild(out string, man *manifest.Manifest, nodes int64, wall, cpu float64) BuildSummary {
	sum := BuildSummary{Out: out, Complete: man.Complete, Shards: len(man.Shards), Trees: man.Trees,
		Rows: man.Rows, BuiltNodes: nodes, WallSeconds: wall, Skipped: man.SkippedTasks(), Time: man.LastSession}
	if wall > 0 {
		sum.NodesPerSec = float64(nodes) / wall
	}
	if nodes > 0 && cpu > 0 {
		sum.CPUMSPerNode = 1000 * cpu / float64(nodes)
		sum.CPUCapacityNodesPerS = float64(runtime.NumCPU()) * 1000 / sum.CPUMSPerNode
	}
	var unc int64
	for _, s := range man.Shards {
		sum.Bytes += s.Bytes
		unc += s.UncompressedBytes
	}
	if sum.Bytes > 0 {
		sum.Ratio = float64(unc) / float64(sum.Bytes)
	}
	return sum
}

// WriteText writes the summary as text.
func (sum BuildSummary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d shards, %d trees, %d rows (%d built now) in %.1fs, %.1f nodes/s, %d bytes, compression %.2fx\n",
		sum.Out, sum.Shards, sum.Trees, sum.Rows, sum.BuiltNodes, sum.WallSeconds, sum.NodesPerSec, sum.Bytes, sum.Ratio)
	if sum.CPUMSPerNode > 0 {
		fmt.Fprintf(w, "CPU %.1f ms per node (build and sandbox): %.1f nodes/s on %d idle cores\n",
			sum.CPUMSPerNode, sum.CPUCapacityNodesPerS, runtime.NumCPU())
	}
	manifest.WriteSkipped(w, sum.Skipped)
	if sum.Time != nil {
		sum.Time.WriteText(w, "time breakdown of this session")
	}
	return nil
}

// BuildReporter shows the progress of a build (BuildOptions.Progress): a
// progress bar on a terminal, and structured log lines
// (at most one per 10 s, plus one per shard) otherwise.
type BuildReporter struct {
	bar     *progressbar.ProgressBar
	start   time.Time
	lastLog time.Time
	last    Progress
}

// NewBuildReporter makes a BuildReporter for a build started at start;
// tty: draw the bar on stderr.
func NewBuildReporter(tty bool, start time.Time) *BuildReporter {
	r := &BuildReporter{start: start, lastLog: start}
	if tty {
		r.bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSetDescription("trees"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	return r
}

// Update shows one progress report.
func (r *BuildReporter) Update(p Progress) {
	prev := r.last
	r.last = p
	el := time.Since(r.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(p.Nodes) / el
	}
	if p.TasksChecked < p.TasksToCheck {
		if r.bar != nil {
			r.bar.Describe(fmt.Sprintf("input checks (%d/%d tasks)", p.TasksChecked, p.TasksToCheck))
			_ = r.bar.Set(0)
		} else if time.Since(r.lastLog) >= 10*time.Second {
			r.lastLog = time.Now()
			slog.Info("corpus build input checks", "tasks", p.TasksChecked, "of", p.TasksToCheck)
		}
		return
	}
	if r.bar != nil {
		if r.bar.GetMax() != p.TreesTotal {
			r.bar.ChangeMax(p.TreesTotal)
		}
		r.bar.Describe(fmt.Sprintf("trees (%.0f nodes/s, shard %d/%d)", rate, p.ShardsDone, p.ShardsTotal))
		_ = r.bar.Set(p.TreesDone)
		return
	}
	if time.Since(r.lastLog) >= 10*time.Second || p.ShardsDone != prev.ShardsDone {
		r.lastLog = time.Now()
		eta := ""
		if p.TreesDone > 0 && p.TreesTotal > p.TreesDone {
			eta = (time.Duration(el/float64(p.TreesDone)*float64(p.TreesTotal-p.TreesDone)) * time.Second).Round(time.Second).String()
		}
		slog.Info("corpus build progress", "trees", p.TreesDone, "of", p.TreesTotal, "nodes", p.Nodes,
			"nodes_per_s", fmt.Sprintf("%.1f", rate), "shards", p.ShardsDone, "of_shards", p.ShardsTotal, "eta", eta)
	}
}

// Last is the latest progress report.
func (r *BuildReporter) Last() Progress { return r.last }

// Finish clears the bar.
func (r *BuildReporter) Finish() {
	if r.bar != nil {
		_ = r.bar.Finish()
	}
}
