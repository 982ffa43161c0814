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
	type key struct{ task, tree string }
	meanT := func(outs []Outcome) map[key]float64 {
		sum, n, bad := map[key]float64{}, map[key]float64{}, map[key]bool{}
		for _, o := range outs {
			k := key{o.TaskID, o.TreeID}
			if !o.Solved {
				bad[k] = true
			}
			sum[k] += float64(o.T)
			n[k]++
		}
		m := map[key]float64{}
		for k, s := range sum {
			if !bad[k] {
				m[k] = s / n[k]
			}
		}
		return m
	}
	ma, mb := meanT(a), meanT(b)
	var keys []key
	for k := range ma {
		if _, ok := mb[k]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return Paired{}, fmt.Errorf("paired %s/%s: no tree solved by both", nameA, nameB)
	}
	slices.SortFunc(keys, func(x, y key) int { return cmp.Or(cmp.Compare(x.task, y.task), cmp.Compare(x.tree, y.tree)) })
	// Per task: sums of both policies' T and the tree count.
	type cluster struct{ ta, tb, n float64 }
	var clusters []cluster
	for i, k := range keys {
		if i == 0 || k.task != keys[i-1].task {
			clusters = append(clusters, cluster{})
		}
		c := &clusters[len(clusters)-1]
		c.ta += ma[k]
		c.tb += mb[k]
		c.n++
	}
	stat := func(pick func(i int) cluster, m int) (diff, ratio float64) {
		var ta, tb, n float64
		for i := 0; i < m; i++ {
			c := pick(i)
			ta, tb, n = ta+c.ta, tb+c.tb, n+c.n
		}
		return (ta - tb) / n, ta / tb
	}
	p := Paired{A: nameA, B: nameB, Trees: len(keys), Tasks: len(clusters)}
	p.Diff, p.Ratio = stat(func(i int) cluster { return clusters[i] }, len(clusters))
	p.RatioLo, p.RatioHi = p.Ratio, p.Ratio
	if resamples > 0 {
		r := rand.New(rand.NewPCG(seed, 0x9a12ed))
		diffs, ratios := make([]float64, resamples), make([]float64, resamples)
		for s := range resamples {
			diffs[s], ratios[s] = stat(func(int) cluster { return clusters[r.IntN(len(clusters))] }, len(clusters))
		}
		var mean, sq float64
		for _, d := range diffs {
			mean += d
		}
		mean /= float64(resamples)
		for _, d := range diffs {
			sq += (d - mean) * (d - mean)
		}
		p.DiffSE = math.Sqrt(sq / float64(resamples))
		var lmean, lsq float64
		for _, r := range ratios {
			lmean += math.Log(r)
		}
		lmean /= float64(resamples)
		for _, r := range ratios {
			lsq += (math.Log(r) - lmean) * (math.Log(r) - lmean)
		}
		p.LogRatioSE = math.Sqrt(lsq / float64(resamples))
		p.Detectable = DetectableRatio(p.LogRatioSE)
		slices.Sort(ratios)
		p.RatioLo = ratios[int(0.025*float64(resamples-1))]
		p.RatioHi = ratios[int(math.Ceil(0.975*float64(resamples-1)))]
	}
	return p, nil
}
