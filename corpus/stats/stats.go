package stats

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"

	"triage/corpus"
	"triage/corpus/limits"
	"triage/corpus/manifest"
	"triage/corpus/shard"
)

// SplitStats counts tasks and trees of one split (or of one source).
type SplitStats struct {
	Tasks       int `json:"tasks"`
	Trees       int `json:"trees"`
	Nodes       int `json:"nodes"`
	SolvedTrees int `json:"solved_trees"`
}

// Stats summarizes a corpus (the union of its folders).
type Stats struct {
	Shards       int                    `json:"shards"`
	Bytes        int64                  `json:"bytes"`
	Uncompressed int64                  `json:"uncompressed_bytes"`
	Compression  float64                `json:"compression_ratio"`
	TextBytes    int64                  `json:"text_bytes"`
	Tasks        int                    `json:"tasks"`
	Trees        int                    `json:"trees"`
	Nodes        int                    `json:"nodes"`
	SolvedTrees  int                    `json:"solved_trees"`
	SolvedFrac   float64                `json:"solved_fraction"`
	Splits       map[string]*SplitStats `json:"splits"`
	// Sources counts the same per task source (Tree.Source).
	Sources map[string]*SplitStats `json:"sources"`
	// SolveDepth counts trees by the depth of their shallowest fix (the
	// solve distance from the root; "0" = the root passes), plus "unsolved".
	SolveDepth map[string]int `json:"solve_depth_histogram"`
	// EdgeT counts edges by label t ("censored" for censored edges).
	EdgeT            map[string]int `json:"edge_t_histogram"`
	MeanNodesPerRoot float64        `json:"mean_nodes_per_root"`
	Edits            int64          `json:"edits"`
	MeanPassRate     float64        `json:"mean_pass_rate"`
	OutputTokens     int64          `json:"output_tokens"`
	ProposeTokens    int64          `json:"propose_tokens"`
	ReviseTokens     int64          `json:"revise_tokens"`
	TokensEstimated  bool           `json:"tokens_estimated"`
	ProposeFailed    int            `json:"propose_failed"`
	ReviseFailed     int            `json:"revise_failed"`
	Statuses         map[string]int `json:"statuses"`
	// From the folders' manifests (each slice's): the build's time
	// breakdown summed over slices and sessions (nil when no manifest
	// records one), the tasks left out, and the tasks' time limits.
	Time    *manifest.Breakdown   `json:"time,omitempty"`
	Skipped []manifest.TaskRecord `json:"skipped_tasks,omitempty"`
	Limits  *LimitSummary         `json:"time_limits,omitempty"`
	// Protections are the sandbox protections in force in the latest
	// session of every manifest that records them (those all had, sorted):
	// a slice built without one takes it off the list.
	Protections []string `json:"protections,omitempty"`
}

// LimitSummary describes the per-task time limits of a build and the
// reference run times they came from.
type LimitSummary struct {
	Tasks       int               `json:"tasks"`
	Settings    limits.TimeLimits `json:"settings"`
	ReferenceMS [3]float64        `json:"reference_ms_min_median_max"`
	// ProgramMS and HarnessMS are the parts of the references' CPU the
	// limits charged apart (split limits only, TimeLimits.Split).
	ProgramMS *[3]float64 `json:"reference_program_ms_min_median_max,omitempty"`
	HarnessMS *[3]float64 `json:"reference_harness_ms_min_median_max,omitempty"`
	LimitMS   [3]float64  `json:"limit_ms_min_median_max"`
	// ProgramLimitMS is the budget of the program's own code in a run
	// (TimeLimits.ProgramFloor; nil without one; 0 for a task whose budget
	// would not be below its limit).
	ProgramLimitMS *[3]float64 `json:"program_limit_ms_min_median_max,omitempty"`
}

// ComputeStats scans the corpus folders (their union, each tree once),
// tree by tree, decoding shard files in parallel (one per CPU).
func ComputeStats(dirs ...string) (*Stats, error) {
	files, err := shard.ListShards(dirs...)
	if err != nil {
		return nil, err
	}
	s := &Stats{Splits: map[string]*SplitStats{}, Sources: map[string]*SplitStats{}, SolveDepth: map[string]int{}, EdgeT: map[string]int{},
		Statuses: map[string]int{}, Shards: len(files)}
	for _, f := range files {
		info, err := shard.InspectShard(f)
		if err != nil {
			return nil, err
		}
		s.Bytes += info.Bytes
		s.Uncompressed += info.UncompressedBytes
	}
	r, err := shard.OpenTrees(dirs, shard.ReadOptions{Columns: shard.AllColumns, Files: runtime.NumCPU()})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	tasks := map[string]bool{}
	groupTaskSeen := map[string]bool{}
	var passSum float64
	for {
		t, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("corpus stats: %w", err)
		}
		tasks[t.TaskID] = true
		sp := countGroup(s.Splits, groupTaskSeen, "split", t.Split, t)
		src := countGroup(s.Sources, groupTaskSeen, "source", t.Source, t)
		s.Trees++
		s.Nodes += len(t.Nodes)
		fix := s.addNodes(t, &passSum)
		if fix >= 0 {
			s.SolvedTrees++
			sp.SolvedTrees++
			src.SolvedTrees++
			s.SolveDepth[strconv.Itoa(fix)]++
		} else {
			s.SolveDepth["unsolved"]++
		}
	}
	s.Tasks = len(tasks)
	if s.Trees > 0 {
		s.SolvedFrac = float64(s.SolvedTrees) / float64(s.Trees)
		s.MeanNodesPerRoot = float64(s.Nodes) / float64(s.Trees)
	}
	if s.Nodes > 0 {
		s.MeanPassRate = passSum / float64(s.Nodes)
	}
	if s.Bytes > 0 {
		s.Compression = float64(s.Uncompressed) / float64(s.Bytes)
	}
	if err := s.addManifests(dirs); err != nil {
		return nil, fmt.Errorf("corpus stats: %w", err)
	}
	return s, nil
}

// addNodes counts the nodes and edges of t into s: tokens, text, statuses,
// failed calls and edge labels, and adds each node's pass rate to
// *passSum. It returns the depth of t's shallowest fix (-1 without one).
func (s *Stats) addNodes(t *corpus.Tree, passSum *float64) (fix int) {
	fix = -1
	for i := range t.Nodes {
		n := &t.Nodes[i]
		*passSum += n.Exec.PassRate
		s.Edits += int64(len(n.Edges))
		s.OutputTokens += int64(n.ReviseTokens + n.ProposeTokens)
		s.ProposeTokens += int64(n.ProposeTokens)
		s.ReviseTokens += int64(n.ReviseTokens)
		s.TokensEstimated = s.TokensEstimated || n.TokensEstimated
		s.TextBytes += nodeTextBytes(t, n)
		s.Statuses[string(n.Exec.Status)]++
		if n.ProposeFailed {
			s.ProposeFailed++
		}
		if n.ReviseFailed {
			s.ReviseFailed++
		}
		if n.Solved() && (fix < 0 || n.Depth < fix) {
			fix = n.Depth
		}
		for _, e := range n.Edges {
			if l := t.Edges[e].Label; l.Censored {
				s.EdgeT["censored"]++
			} else {
				s.EdgeT[strconv.Itoa(int(l.T))]++
			}
		}
	}
	return fix
}

// countGroup counts tree t (its task once) in groups[name], a split or a
// source (kind keeps their task counts apart), and returns the group.
func countGroup(groups map[string]*SplitStats, taskSeen map[string]bool, kind, name string, t *corpus.Tree) *SplitStats {
	g := groups[name]
	if g == nil {
		g = &SplitStats{}
		groups[name] = g
	}
	if k := kind + "\x00" + name + "\x00" + t.TaskID; !taskSeen[k] {
		taskSeen[k] = true
		g.Tasks++
	}
	g.Trees++
	g.Nodes += len(t.Nodes)
	return g
}

// nodeTextBytes counts n's text as RowTextBytes counts its row's.
func nodeTextBytes(t *corpus.Tree, n *corpus.Node) int64 {
	b := len(n.Program) + len(n.Exec.Feedback) + len(n.Diagnosis) + len(n.Raw)
	for _, e := range n.Edges {
		b += len(t.Edges[e].Edit.Text) + len(t.Edges[e].Edit.Payload)
	}
	for _, tr := range n.Exec.Tests {
		b += len(tr.Name) + len(tr.Message)
	}
	return int64(b)
}

// addManifests reads the build manifests of dirs (each file once): their
// time breakdowns, skipped tasks and time limits.
func (s *Stats) addManifests(dirs []string) error {
	seen := map[string]bool{}
	var refs, progs, harns, limits, progLimits []float64
	var prot manifest.CommonProtections
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "manifest*.json"))
		if err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			abs, err := filepath.Abs(f)
			if err != nil {
				abs = f
			}
			if seen[abs] {
				continue
			}
			seen[abs] = true
			m, err := manifest.ReadManifest(f)
			if err != nil {
				return err
			}
			if m.Time != nil {
				if s.Time == nil {
					s.Time = &manifest.Breakdown{}
				}
				s.Time.Add(m.Time)
			}
			s.Skipped = append(s.Skipped, m.SkippedTasks()...)
			if len(m.Protections) > 0 {
				prot.Add(m.Protections)
			}
			for _, sh := range m.Shards {
				for _, t := range sh.Tasks {
					if t.Skipped != "" || t.LimitMS <= 0 {
						continue
					}
					if s.Limits == nil {
						s.Limits = &LimitSummary{Settings: m.Settings.Limits}
					}
					s.Limits.Tasks++
					refs = append(refs, t.ReferenceMS)
					progs = append(progs, t.ProgramMS)
					harns = append(harns, t.HarnessMS)
					limits = append(limits, t.LimitMS)
					progLimits = append(progLimits, t.ProgramLimitMS)
				}
			}
		}
	}
	s.Protections = prot.Sorted()
	if s.Limits != nil {
		s.Limits.ReferenceMS = minMedianMax(refs)
		s.Limits.LimitMS = minMedianMax(limits)
		if s.Limits.Settings.Split() {
			p, h := minMedianMax(progs), minMedianMax(harns)
			s.Limits.ProgramMS, s.Limits.HarnessMS = &p, &h
		}
		if s.Limits.Settings.ProgramFloor > 0 {
			pl := minMedianMax(progLimits)
			s.Limits.ProgramLimitMS = &pl
		}
	}
	return nil
}

func minMedianMax(xs []float64) [3]float64 {
	if len(xs) == 0 {
		return [3]float64{}
	}
	sort.Float64s(xs)
	return [3]float64{xs[0], xs[len(xs)/2], xs[len(xs)-1]}
}

// SortedKeys returns a histogram's keys in numeric order, then the others.
func SortedKeys(h map[string]int) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, ea := strconv.Atoi(keys[i])
		b, eb := strconv.Atoi(keys[j])
		switch {
		case ea == nil && eb == nil:
			return a < b
		case ea == nil:
			return true
		case eb == nil:
			return false
		}
		return keys[i] < keys[j]
	})
	return keys
}
