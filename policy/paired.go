package policy

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Paired compares two policies' E[T] on the trees both solve under every
// seed, tree by tree, with a bootstrap clustered by task: what decides
// "learned against a baseline" when both ran on the same trees (the
// unpaired standard errors of Summary count the trees' difficulty twice).
type Paired struct {
	A string `json:"a"`
	B string `json:"b"`
	// Diff is E[T](A) − E[T](B) over the common trees, Ratio E[T](A) / E[T](B).
	Diff   float64 `json:"diff_ET"`
	DiffSE float64 `json:"diff_ET_se"`
	Ratio  float64 `json:"ratio_ET"`
	// RatioLo and RatioHi bound the central 95% of the bootstrap ratios.
	RatioLo float64 `json:"ratio_lo95"`
	RatioHi float64 `json:"ratio_hi95"`
	// LogRatioSE is the bootstrap standard error of ln(Ratio); Detectable
	// is the smallest ratio below 1 that a two-sided 5 % test of these
	// trees would tell from 1 with 80 % power, exp(−(z₀.₉₇₅ + z₀.₈)·SE):
	// how large an effect this many trees can show.
	LogRatioSE float64 `json:"log_ratio_se"`
	Detectable float64 `json:"detectable_ratio"`
	Trees      int     `json:"trees"`
	Tasks      int     `json:"tasks"`
}

// zPower80 is z₀.₉₇₅ + z₀.₈: the standard errors between the null and
// the smallest effect a two-sided 5 % test detects with 80 % power.
const zPower80 = 1.959964 + 0.841621

// DetectableRatio is the smallest ratio below 1 that a two-sided 5 % test
// tells from 1 with 80 % power when ln(ratio) has standard error se.
func DetectableRatio(se float64) float64 { return math.Exp(-zPower80 * se) }

// ComparePaired computes Paired for outcomes a and b (named nameA and
// nameB) with resamples bootstrap draws of whole tasks seeded by seed.
func ComparePaired(nameA string, a []Outcome, nameB string, b []Outcome, resamples int, seed uint64) (Paired, error) {
	clusters, trees := pairedClusters(meanSolvedT(a), meanSolvedT(b))
	if trees == 0 {
		return Paired{}, fmt.Errorf("paired %s/%s: no tree solved by both", nameA, nameB)
	}
	stat := func(pick func(i int) pairCluster, m int) (diff, ratio float64) {
		var ta, tb, n float64
		for i := 0; i < m; i++ {
			c := pick(i)
			ta, tb, n = ta+c.ta, tb+c.tb, n+c.n
		}
		return (ta - tb) / n, ta / tb
	}
	p := Paired{A: nameA, B: nameB, Trees: trees, Tasks: len(clusters)}
	p.Diff, p.Ratio = stat(func(i int) pairCluster { return clusters[i] }, len(clusters))
	p.RatioLo, p.RatioHi = p.Ratio, p.Ratio
	if resamples > 0 {
		r := rand.New(rand.NewPCG(seed, 0x9a12ed))
		diffs, ratios := make([]float64, resamples), make([]float64, resamples)
		for s := range resamples {
			diffs[s], ratios[s] = stat(func(int) pairCluster { return clusters[r.IntN(len(clusters))] }, len(clusters))
		}
		logs := make([]float64, resamples)
		for s, r := range ratios {
			logs[s] = math.Log(r)
		}
		p.DiffSE, p.LogRatioSE = spread(diffs), spread(logs)
		p.Detectable = DetectableRatio(p.LogRatioSE)
		slices.Sort(ratios)
		p.RatioLo = ratios[int(0.025*float64(resamples-1))]
		p.RatioHi = ratios[int(math.Ceil(0.975*float64(resamples-1)))]
	}
	return p, nil
}

// treeKey names a tree of a task.
type treeKey struct{ task, tree string }

// meanSolvedT is each tree's T averaged over its seeds, for the trees
// solved under every seed.
func meanSolvedT(outs []Outcome) map[treeKey]float64 {
	sum, n, bad := map[treeKey]float64{}, map[treeKey]float64{}, map[treeKey]bool{}
	for _, o := range outs {
		k := treeKey{o.TaskID, o.TreeID}
		if !o.Solved {
			bad[k] = true
		}
		sum[k] += float64(o.T)
		n[k]++
	}
	m := map[treeKey]float64{}
	for k, s := range sum {
		if !bad[k] {
			m[k] = s / n[k]
		}
	}
	return m
}

// pairCluster is one task of a paired comparison: the sums of both
// policies' T over its trees, and the tree count.
type pairCluster struct{ ta, tb, n float64 }

// pairedClusters sums ma and mb over the trees both hold, per task (tasks
// and trees in order), and counts those trees.
func pairedClusters(ma, mb map[treeKey]float64) ([]pairCluster, int) {
	var keys []treeKey
	for k := range ma {
		if _, ok := mb[k]; ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y treeKey) int { return cmp.Or(cmp.Compare(x.task, y.task), cmp.Compare(x.tree, y.tree)) })
	var clusters []pairCluster
	for i, k := range keys {
		if i == 0 || k.task != keys[i-1].task {
			clusters = append(clusters, pairCluster{})
		}
		c := &clusters[len(clusters)-1]
		c.ta += ma[k]
		c.tb += mb[k]
		c.n++
	}
	return clusters, len(keys)
}

// spread is the standard deviation of xs about their mean (dividing by
// len(xs): the spread of bootstrap draws).
func spread(xs []float64) float64 {
	var mean, sq float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq / float64(len(xs)))
}
