package policy

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Outcome is the result of one replay of one policy on one tree with one
// seed.
type Outcome struct {
	TaskID string `json:"task_id"`
	TreeID string `json:"tree_id"`
	Seed   uint64 `json:"seed"`
	// Solved reports whether the search reached a fix; T is then the number
	// of expansions through the first fix (0 when the root passes).
	Solved bool `json:"solved"`
	T      int  `json:"t"`
	// Tokens are the output tokens through the first fix: the root's
	// proposal plus every expansion's revision and proposal (all of them
	// when unsolved).
	Tokens int `json:"tokens"`
}

// Summary holds the metrics of one policy over a set of trees, each with a
// standard error from a bootstrap clustered by task (docs/design.md "Metrics").
// Budget-indexed maps are keyed by the budget in decimal.
type Summary struct {
	// ET is E[T], the mean expansions to the first fix over the trees the
	// policy solved when run to exhaustion (every tree that holds a fix).
	ET       float64 `json:"ET"`
	ETSE     float64 `json:"ET_se"`
	Tokens   float64 `json:"tokens"`
	TokensSE float64 `json:"tokens_se"`
	// S is S(B), the fraction of trees solved within B expansions.
	S   map[string]float64 `json:"S"`
	SSE map[string]float64 `json:"S_se"`
	// C is C(B), the mean realized cost min(T, B), a failure costing B.
	C   map[string]float64 `json:"C"`
	CSE map[string]float64 `json:"C_se"`
	// AUSC is AUSC(B) = (1/B) Σ_{b=1..B} S(b).
	AUSC   map[string]float64 `json:"AUSC"`
	AUSCSE map[string]float64 `json:"AUSC_se"`
	// Curve is S(b) for b = 0..max budget, for plots.
	Curve  []float64 `json:"curve"`
	Trees  int       `json:"trees"`
	Solved int       `json:"solved_trees"`
	Tasks  int       `json:"tasks"`
}

// treeStats are one tree's metrics averaged over seeds.
type treeStats struct {
	task   string
	solved bool // solved under every seed (so T is defined)
	t      float64
	tokens float64
	s      []float64 // S(b), b = 0..maxB
	// c and ausc are the tree's C(B) and AUSC(B) per reported budget,
	// computed once so that bootstrap draws only add them up.
	c, ausc []float64
}

// Summarize computes the metrics of outs (several seeds of one tree are
// averaged, then trees are averaged) at budgets, with standard errors from
// resamples bootstrap draws of whole tasks seeded by seed (0 resamples:
// standard errors are 0).
func Summarize(outs []Outcome, budgets []int, resamples int, seed uint64) (Summary, error) {
	if len(budgets) == 0 {
		return Summary{}, fmt.Errorf("summarize: no budgets")
	}
	maxB := slices.Max(budgets)
	if slices.Min(budgets) < 1 {
		return Summary{}, fmt.Errorf("summarize: budgets must be >= 1, got %v", budgets)
	}
	trees := statsByTree(outs, budgets, maxB)
	tasks := taskClusters(trees)
	stat := func(idx []int) []float64 { return treeMetrics(trees, idx, budgets, maxB) }
	all := make([]int, len(trees))
	for i := range all {
		all[i] = i
	}
	point := stat(all)
	for k, x := range point {
		if math.IsNaN(x) { // no solved tree: E[T] and tokens undefined, reported as 0
			point[k] = 0
		}
	}
	se := bootstrapSE(stat, tasks, len(trees), len(point), resamples, seed)
	sm := Summary{
		ET: point[0], ETSE: se[0], Tokens: point[1], TokensSE: se[1],
		S: map[string]float64{}, SSE: map[string]float64{}, C: map[string]float64{}, CSE: map[string]float64{},
		AUSC: map[string]float64{}, AUSCSE: map[string]float64{},
		Trees: len(trees), Tasks: len(tasks),
	}
	for i, b := range budgets {
		k := fmt.Sprint(b)
		sm.S[k], sm.SSE[k] = point[2+3*i], se[2+3*i]
		sm.C[k], sm.CSE[k] = point[3+3*i], se[3+3*i]
		sm.AUSC[k], sm.AUSCSE[k] = point[4+3*i], se[4+3*i]
	}
	sm.Curve = make([]float64, maxB+1)
	for _, ts := range trees {
		if ts.solved {
			sm.Solved++
		}
		for b := range sm.Curve {
			sm.Curve[b] += ts.s[b] / float64(len(trees))
		}
	}
	return sm, nil
}

// statsByTree averages the outcomes of each tree over its seeds, trees
// sorted by task and tree id (for determinism), with each tree's S(b) up
// to maxB and its C(B) and AUSC(B) per budget.
func statsByTree(outs []Outcome, budgets []int, maxB int) []treeStats {
	sorted := slices.Clone(outs)
	slices.SortFunc(sorted, func(a, b Outcome) int {
		return cmp.Or(cmp.Compare(a.TaskID, b.TaskID), cmp.Compare(a.TreeID, b.TreeID), cmp.Compare(a.Seed, b.Seed))
	})
	var trees []treeStats
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].TreeID == sorted[i].TreeID && sorted[j].TaskID == sorted[i].TaskID {
			j++
		}
		ts := treeStats{task: sorted[i].TaskID, solved: true, s: make([]float64, maxB+1)}
		n := float64(j - i)
		for _, o := range sorted[i:j] {
			if !o.Solved {
				ts.solved = false
			}
			ts.t += float64(o.T) / n
			ts.tokens += float64(o.Tokens) / n
			if o.Solved {
				for b := o.T; b <= maxB; b++ {
					ts.s[b] += 1 / n
				}
			}
		}
		ts.c, ts.ausc = make([]float64, len(budgets)), make([]float64, len(budgets))
		for k, b := range budgets {
			// C(B) = Σ_{b'=0}^{B-1} P(T > b') = Σ (1 − S(b')).
			var c, a float64
			for bb := 0; bb < b; bb++ {
				c += 1 - ts.s[bb]
				a += ts.s[bb+1]
			}
			ts.c[k], ts.ausc[k] = c, a/float64(b)
		}
		trees = append(trees, ts)
		i = j
	}
	return trees
}

// taskClusters are the indices of the trees of each task (trees sorted by
// task): the clusters the bootstrap resamples.
func taskClusters(trees []treeStats) [][]int {
	var tasks [][]int
	for i, ts := range trees {
		if i == 0 || ts.task != trees[i-1].task {
			tasks = append(tasks, nil)
		}
		tasks[len(tasks)-1] = append(tasks[len(tasks)-1], i)
	}
	return tasks
}

// bootstrapSE is the standard error of each of the n values of stat over
// resamples draws of whole tasks (with replacement), seeded by seed; a
// value undefined in a draw (NaN) is left out of that value's error. No
// resamples or no task: all zero.
func bootstrapSE(stat func(idx []int) []float64, tasks [][]int, numTrees, n, resamples int, seed uint64) []float64 {
	se := make([]float64, n)
	if resamples <= 0 || len(tasks) == 0 {
		return se
	}
	r := rand.New(rand.NewPCG(seed, 0xb0075))
	sum := make([]float64, n)
	sumSq := make([]float64, n)
	cnt := make([]float64, n)
	idx := make([]int, 0, numTrees)
	for range resamples {
		idx = idx[:0]
		for range tasks {
			idx = append(idx, tasks[r.IntN(len(tasks))]...)
		}
		v := stat(idx)
		for k, x := range v {
			if !math.IsNaN(x) {
				sum[k] += x
				sumSq[k] += x * x
				cnt[k]++
			}
		}
	}
	for k := range se {
		if cnt[k] > 1 {
			m := sum[k] / cnt[k]
			se[k] = math.Sqrt(math.Max(0, (sumSq[k]-cnt[k]*m*m)/(cnt[k]-1)))
		}
	}
	return se
}

// treeMetrics returns [E[T], tokens, then S, C, AUSC per budget] over the
// trees idx (with repeats). E[T] and tokens are NaN when no tree of idx is
// solved.
func treeMetrics(trees []treeStats, idx []int, budgets []int, maxB int) []float64 {
	out := make([]float64, 2+3*len(budgets))
	var solved float64
	for _, i := range idx {
		ts := &trees[i]
		if ts.solved {
			out[0] += ts.t
			out[1] += ts.tokens
			solved++
		}
		for j, b := range budgets {
			out[2+3*j] += ts.s[b]
			out[3+3*j] += ts.c[j]
			out[4+3*j] += ts.ausc[j]
		}
	}
	if solved > 0 {
		out[0] /= solved
		out[1] /= solved
	} else {
		out[0], out[1] = math.NaN(), math.NaN()
	}
	n := float64(len(idx))
	for k := 2; k < len(out); k++ {
		if n > 0 {
			out[k] /= n
		}
	}
	return out
}
