package codeprior

import (
	"fmt"
	"math"
	"slices"
)

// sequences holds training programs as symbol ids, each starting with <s>
// and ending with </s>, back to back.
type sequences struct {
	ids    []uint16
	starts []int // start of each program in ids
}

func (s *sequences) add(ids []uint16) {
	s.starts = append(s.starts, len(s.ids))
	s.ids = append(s.ids, ids...)
}

func (s *sequences) each(fn func(seq []uint16)) {
	for i, st := range s.starts {
		end := len(s.ids)
		if i+1 < len(s.starts) {
			end = s.starts[i+1]
		}
		fn(s.ids[st:end])
	}
}

// ngrams are the distinct n-grams of one order, sorted by key, with their
// adjusted counts: the count itself at the top order and for n-grams that
// start with <s>; otherwise the number of distinct symbols seen before it
// (Kneser–Ney's continuation count).
type ngrams struct {
	keys []gram
	adj  []uint32
}

// runs counts equal values of a sorted slice.
func runs(sorted []gram) ngrams {
	var g ngrams
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		g.keys = append(g.keys, sorted[i])
		g.adj = append(g.adj, uint32(min(j-i, math.MaxUint32)))
		i = j
	}
	return g
}

// merge merges two key-disjoint sorted ngrams.
func merge(a, b ngrams) ngrams {
	out := ngrams{keys: make([]gram, 0, len(a.keys)+len(b.keys)), adj: make([]uint32, 0, len(a.keys)+len(b.keys))}
	i, j := 0, 0
	for i < len(a.keys) || j < len(b.keys) {
		if j >= len(b.keys) || i < len(a.keys) && cmpGram(a.keys[i], b.keys[j]) < 0 {
			out.keys, out.adj = append(out.keys, a.keys[i]), append(out.adj, a.adj[i])
			i++
		} else {
			out.keys, out.adj = append(out.keys, b.keys[j]), append(out.adj, b.adj[j])
			j++
		}
	}
	return out
}

// countNGrams returns the adjusted counts of every order 1..order (index
// n-1); order 1 is dense over the vocabulary (keys are the ids).
func countNGrams(seqs *sequences, order, vocabSize int, bos uint16) []ngrams {
	out := make([]ngrams, order)
	var buf []gram
	seqs.each(func(seq []uint16) {
		for i := order - 1; i < len(seq); i++ {
			buf = append(buf, pack(seq[i-order+1:i+1]))
		}
	})
	slices.SortFunc(buf, cmpGram)
	out[order-1] = runs(buf)
	for n := order - 1; n >= 1; n-- {
		up := out[n]
		buf = buf[:0]
		for _, k := range up.keys {
			buf = append(buf, k.suffix(n))
		}
		slices.SortFunc(buf, cmpGram)
		cont := runs(buf) // one suffix per distinct (n+1)-gram: the run is the continuation count
		buf = buf[:0]
		seqs.each(func(seq []uint16) {
			if n >= 2 && len(seq) >= n {
				buf = append(buf, pack(seq[:n]))
			}
		})
		slices.SortFunc(buf, cmpGram)
		out[n-1] = merge(cont, runs(buf))
	}
	// Order 1 dense: every id, <s> with count 0.
	dense := ngrams{keys: make([]gram, vocabSize), adj: make([]uint32, vocabSize)}
	for i := range dense.keys {
		dense.keys[i] = gram{lo: uint64(i)}
	}
	for i, k := range out[0].keys {
		if w := k.last(); int(w) < vocabSize && w != bos {
			dense.adj[w] = out[0].adj[i]
		}
	}
	out[0] = dense
	return out
}

// discounts are modified Kneser–Ney's D1, D2, D3+ of one order, from the
// counts of adjusted counts 1..4 (Chen and Goodman 1998).
func discounts(adj []uint32) [3]float64 {
	var n [5]float64
	for _, a := range adj {
		if a >= 1 && a <= 4 {
			n[a]++
		}
	}
	d := [3]float64{0.5, 1, 1.5} // where the counts of counts say nothing
	if n[1] == 0 || n[2] == 0 {
		return d
	}
	y := n[1] / (n[1] + 2*n[2])
	est := [3]float64{1 - 2*y*n[2]/n[1], 2 - 3*y*n[3]/n[2], 3 - 4*y*n[4]/math.Max(n[3], 1)}
	for k := range est {
		if est[k] > 0 && est[k] <= float64(k+1) && (k < 2 || n[3] > 0) {
			d[k] = est[k]
		}
	}
	return d
}

func discount(d [3]float64, a uint32) float64 {
	switch a {
	case 0:
		return 0
	case 1:
		return d[0]
	case 2:
		return d[1]
	}
	return d[2]
}

// interpolate returns the interpolated modified Kneser–Ney probability of
// every counted n-gram (index n-1, parallel to counts[n-1].keys), and the
// discounts of each order. The unigram level interpolates with the uniform
// distribution over the vocabulary less <s>.
func interpolate(counts []ngrams, bos uint16) ([][]float64, [][3]float64) {
	order := len(counts)
	probs := make([][]float64, order)
	ds := make([][3]float64, order)
	for n := 1; n <= order; n++ {
		c := counts[n-1]
		if n == 1 {
			var adj []uint32
			for w, a := range c.adj {
				if uint16(w) != bos {
					adj = append(adj, a)
				}
			}
			ds[0] = discounts(adj)
		} else {
			ds[n-1] = discounts(c.adj)
		}
		p := make([]float64, len(c.keys))
		for lo := 0; lo < len(c.keys); {
			hi := lo + 1
			if n > 1 {
				for hi < len(c.keys) && c.keys[hi].ctx() == c.keys[lo].ctx() {
					hi++
				}
			} else {
				hi = len(c.keys)
			}
			var sum, mass float64
			for i := lo; i < hi; i++ {
				if n == 1 && uint16(i) == bos {
					continue
				}
				sum += float64(c.adj[i])
				mass += discount(ds[n-1], c.adj[i])
			}
			for i := lo; i < hi; i++ {
				if n == 1 && uint16(i) == bos {
					continue
				}
				var lower float64
				if n == 1 {
					lower = 1 / float64(len(c.keys)-1)
				} else {
					j, _ := slices.BinarySearchFunc(counts[n-2].keys, c.keys[i].suffix(n-1), cmpGram)
					lower = probs[n-2][j]
				}
				if sum == 0 {
					p[i] = lower
					continue
				}
				p[i] = math.Max(float64(c.adj[i])-discount(ds[n-1], c.adj[i]), 0)/sum + mass/sum*lower
			}
			lo = hi
		}
		probs[n-1] = p
	}
	return probs, ds
}

// prune returns, per order n ≥ 2 (index n-2), which counted n-grams the
// model keeps: those with an adjusted count of at least minCount[n-1], and
// every context of a kept n-gram.
func prune(counts []ngrams, minCount []int) [][]bool {
	order := len(counts)
	keep := make([][]bool, order-1)
	for n := order; n >= 2; n-- {
		c := counts[n-1]
		k := make([]bool, len(c.keys))
		for i, a := range c.adj {
			if int64(a) >= int64(minCount[n-1]) {
				k[i] = true
			}
		}
		if n < order {
			for i, key := range counts[n].keys {
				if keep[n-1][i] {
					j, _ := slices.BinarySearchFunc(c.keys, key.ctx(), cmpGram)
					k[j] = true
				}
			}
		}
		keep[n-2] = k
	}
	return keep
}

// quantize returns a codebook of at most 256 log values and each value's
// code: the values are split at their quantiles into equal-count bins and
// each bin is coded by its mean.
func quantize(vals []float64) ([]float32, []uint8) {
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	bins := min(256, len(sorted))
	var book []float32
	var edges []float64 // upper bound of each bin
	for b := range bins {
		lo, hi := b*len(sorted)/bins, (b+1)*len(sorted)/bins
		var s float64
		for _, v := range sorted[lo:hi] {
			s += v
		}
		book = append(book, float32(s/float64(hi-lo)))
		edges = append(edges, sorted[hi-1])
	}
	codes := make([]uint8, len(vals))
	for i, v := range vals {
		j, _ := slices.BinarySearch(edges, v)
		codes[i] = uint8(min(j, bins-1))
	}
	return book, codes
}

// buildLM turns counts into the stored backoff model: interpolated
// probabilities, pruning, quantisation, then backoff weights computed from
// the stored values so each context sums to one.
func buildLM(counts []ngrams, minCount []int, bos uint16) (*lm, [][3]float64, error) {
	order := len(counts)
	if order < 1 || order > maxOrder {
		return nil, nil, fmt.Errorf("order %d, want 1..%d", order, maxOrder)
	}
	probs, ds := interpolate(counts, bos)
	keep := prune(counts, minCount)
	v := len(counts[0].keys)
	m := &lm{order: order, uni: make([]float32, v), uniBack: make([]float32, v)}
	for w, p := range probs[0] {
		m.uni[w] = float32(math.Log(p))
		if uint16(w) == bos || p <= 0 {
			m.uni[w] = noProb
		}
	}
	for n := 2; n <= order; n++ {
		c := counts[n-1]
		var keys []gram
		var vals []float64
		for i, k := range keep[n-2] {
			if k {
				keys = append(keys, c.keys[i])
				vals = append(vals, math.Log(probs[n-1][i]))
			}
		}
		book, codes := quantize(vals)
		m.keys = append(m.keys, keys)
		m.codes = append(m.codes, codes)
		m.book = append(m.book, book)
		if n < order {
			m.back = append(m.back, make([]int32, len(keys)))
		}
		m.setBackoffs(n)
	}
	return m, ds, nil
}

// setBackoffs computes the backoff weights of the contexts (order n-1) of
// the kept n-grams of order n from the stored values of orders ≤ n.
func (m *lm) setBackoffs(n int) {
	keys, codes, book := m.keys[n-2], m.codes[n-2], m.book[n-2]
	ctx := make([]uint16, n)
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].ctx() == keys[lo].ctx() {
			hi++
		}
		unpack(keys[lo], ctx)
		h := ctx[:n-1]
		var kept, lower float64
		for i := lo; i < hi; i++ {
			kept += math.Exp(float64(book[codes[i]]))
			lower += math.Exp(m.logProb(h[1:], keys[i].last()))
		}
		lb := math.Log(math.Max(1-kept, 1e-9)) - math.Log(math.Max(1-lower, 1e-9))
		if n == 2 {
			m.uniBack[h[0]] = float32(lb)
		} else {
			j, _ := m.find(n-1, pack(h))
			m.back[n-3][j] = int32(max(-maxBack, min(maxBack, math.Round(lb*backScale))))
		}
		lo = hi
	}
}

// unpack writes the len(ids) symbols of key into ids.
func unpack(key gram, ids []uint16) {
	for i := len(ids) - 1; i >= 0; i-- {
		ids[i] = key.last()
		key = key.ctx()
	}
}
